func.func @select_values(%p: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xf16>) -> tensor<4xf32> {
  %0 = "kiln.select"(%p, %a, %b) : (tensor<4xi1>, tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
