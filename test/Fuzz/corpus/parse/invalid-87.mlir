func.func @gelu_approximate_not_bool(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "kiln.gelu"(%a) <{approximate = 1 : i32}> : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
