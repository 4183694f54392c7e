func.func @transpose_range(%a: tensor<4x8xf32>) -> tensor<8x4xf32> {
  %0 = kiln.transpose %a, perm = [2, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}
