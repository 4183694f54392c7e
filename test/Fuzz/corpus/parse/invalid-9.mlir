func.func @matmul_f8(%a: tensor<4x4xf8E4M3FN>) -> tensor<4x4xf8E4M3FN> {
  %0 = kiln.matmul %a, %a : tensor<4x4xf8E4M3FN>, tensor<4x4xf8E4M3FN> -> tensor<4x4xf8E4M3FN>
  return %0 : tensor<4x4xf8E4M3FN>
}
