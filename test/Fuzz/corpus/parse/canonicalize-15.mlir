func.func @broadcast_unit_dims(%x: tensor<8xf32>) -> tensor<1x8x1xf32> {
  %b = kiln.broadcast_in_dim %x, dims = [1] : tensor<8xf32> -> tensor<1x8x1xf32>
  return %b : tensor<1x8x1xf32>
}
