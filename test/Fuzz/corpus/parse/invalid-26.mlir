func.func @bcast_size(%a: tensor<3xf32>) -> tensor<4x8xf32> {
  %0 = kiln.broadcast_in_dim %a, dims = [1] : tensor<3xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
