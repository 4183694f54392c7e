func.func @transpose_result(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = kiln.transpose %a, perm = [1, 0] : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
