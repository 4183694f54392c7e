func.func @matmul_element_type(%a: tensor<4x8xf32>, %b: tensor<8x16xf16>) -> tensor<4x16xf32> {
  %0 = kiln.matmul %a, %b : tensor<4x8xf32>, tensor<8x16xf16> -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}
