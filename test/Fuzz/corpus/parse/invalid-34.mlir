func.func @transpose_element_type(%a: tensor<4x8xf32>) -> tensor<8x4xf16> {
  %0 = kiln.transpose %a, perm = [1, 0] : tensor<4x8xf32> -> tensor<8x4xf16>
  return %0 : tensor<8x4xf16>
}
