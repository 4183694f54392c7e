func.func @transpose_transpose(%x: tensor<2x3x4xf32>) -> (tensor<4x2x3xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>) {
  %a = kiln.transpose %x, perm = [1, 0, 2] : tensor<2x3x4xf32> -> tensor<3x2x4xf32>
  %b = kiln.transpose %a, perm = [2, 1, 0] : tensor<3x2x4xf32> -> tensor<4x2x3xf32>
  %c = kiln.transpose %a, perm = [1, 0, 2] : tensor<3x2x4xf32> -> tensor<2x3x4xf32>
  %d = kiln.transpose %x, perm = [0, 1, 2] : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  return %b, %c, %d : tensor<4x2x3xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>
}
