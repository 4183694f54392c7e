func.func @exp_result(%a: tensor<4xf32>) -> tensor<?xf32> {
  %0 = "kiln.exp"(%a) : (tensor<4xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
