func.func @matmul_k_transpose_ab(%a: tensor<2x8x4xf32>, %b: tensor<2x8x16xf32>) -> tensor<2x4x8xf32> {
  %0 = kiln.matmul %a, %b {transpose_a = true, transpose_b = true} : tensor<2x8x4xf32>, tensor<2x8x16xf32> -> tensor<2x4x8xf32>
  return %0 : tensor<2x4x8xf32>
}
