func.func @transpose_duplicate(%a: tensor<4x8xf32>) -> tensor<4x4xf32> {
  %0 = kiln.transpose %a, perm = [0, 0] : tensor<4x8xf32> -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}
