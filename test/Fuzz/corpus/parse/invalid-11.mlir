func.func @sub_shape(%a: tensor<4xf32>, %b: tensor<8xf32>) -> tensor<4xf32> {
  %0 = "kiln.sub"(%a, %b) : (tensor<4xf32>, tensor<8xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
