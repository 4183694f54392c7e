func.func @broadcast_splat() -> tensor<4x8xf32> {
  %c = kiln.constant dense<2.5> : tensor<8xf32>
  %b = kiln.broadcast_in_dim %c, dims = [1] : tensor<8xf32> -> tensor<4x8xf32>
  return %b : tensor<4x8xf32>
}
