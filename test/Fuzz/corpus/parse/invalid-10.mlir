func.func @add_elt(%a: tensor<4xf32>, %b: tensor<4xf16>) -> tensor<4xf32> {
  %0 = "kiln.add"(%a, %b) : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
