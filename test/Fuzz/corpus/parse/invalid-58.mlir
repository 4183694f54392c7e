func.func @matmul_k(%a: tensor<4x8xf32>, %b: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %0 = kiln.matmul %a, %b : tensor<4x8xf32>, tensor<4x16xf32> -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}
