func.func @reshape_constant() -> tensor<2x2xf32> {
  %c = kiln.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %r = kiln.reshape %c : tensor<4xf32> -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}
