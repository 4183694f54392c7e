func.func @broadcast_broadcast(%x: tensor<8xf32>, %y: tensor<4x8xf32>) -> (tensor<3x4x8xf32>, tensor<4x8xf32>) {
  %a = kiln.broadcast_in_dim %x, dims = [1] : tensor<8xf32> -> tensor<4x8xf32>
  %b = kiln.broadcast_in_dim %a, dims = [1, 2] : tensor<4x8xf32> -> tensor<3x4x8xf32>
  %c = kiln.broadcast_in_dim %y, dims = [0, 1] : tensor<4x8xf32> -> tensor<4x8xf32>
  return %b, %c : tensor<3x4x8xf32>, tensor<4x8xf32>
}
