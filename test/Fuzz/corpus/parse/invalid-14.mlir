func.func @constant_type() -> tensor<8xf32> {
  %0 = "kiln.constant"() <{value = dense<1.0> : tensor<4xf32>}> : () -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
