func.func @matmul_rank4(%a: tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32> {
  %0 = kiln.matmul %a, %a : tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32> -> tensor<2x2x4x4xf32>
  return %0 : tensor<2x2x4x4xf32>
}
