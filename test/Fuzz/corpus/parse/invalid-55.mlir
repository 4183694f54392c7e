func.func @matmul_rank1(%a: tensor<8xf32>) -> tensor<f32> {
  %0 = kiln.matmul %a, %a : tensor<8xf32>, tensor<8xf32> -> tensor<f32>
  return %0 : tensor<f32>
}
