func.func @bcast_range(%a: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = kiln.broadcast_in_dim %a, dims = [2] : tensor<8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
