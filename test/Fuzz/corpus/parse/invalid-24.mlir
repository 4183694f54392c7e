func.func @bcast_order(%a: tensor<1x1xf32>) -> tensor<4x8xf32> {
  %0 = kiln.broadcast_in_dim %a, dims = [1, 0] : tensor<1x1xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
