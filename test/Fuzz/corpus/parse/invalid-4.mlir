func.func @constant_i32() -> tensor<4xi32> {
  %0 = kiln.constant dense<1> : tensor<4xi32>
  return %0 : tensor<4xi32>
}
