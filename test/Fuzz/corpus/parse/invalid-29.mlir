func.func @reshape_element_type(%a: tensor<4x8xf32>) -> tensor<32xf64> {
  %0 = kiln.reshape %a : tensor<4x8xf32> -> tensor<32xf64>
  return %0 : tensor<32xf64>
}
