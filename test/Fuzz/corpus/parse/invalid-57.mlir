func.func @matmul_rank_mismatch(%a: tensor<4x8xf32>, %b: tensor<2x8x4xf32>) -> tensor<2x4x4xf32> {
  %0 = kiln.matmul %a, %b : tensor<4x8xf32>, tensor<2x8x4xf32> -> tensor<2x4x4xf32>
  return %0 : tensor<2x4x4xf32>
}
