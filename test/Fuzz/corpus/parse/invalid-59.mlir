func.func @matmul_k_transpose_a(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %0 = kiln.matmul %a, %b {transpose_a = true} : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}
