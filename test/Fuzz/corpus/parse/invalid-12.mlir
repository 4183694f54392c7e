func.func @mul_result(%a: tensor<4xf32>) -> tensor<4xf64> {
  %0 = "kiln.mul"(%a, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf64>
  return %0 : tensor<4xf64>
}
