func.func @reshape_count(%a: tensor<4x8xf32>) -> tensor<30xf32> {
  %0 = kiln.reshape %a : tensor<4x8xf32> -> tensor<30xf32>
  return %0 : tensor<30xf32>
}
