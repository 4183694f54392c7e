func.func @cmp_result_shape(%a: tensor<4xf32>) -> tensor<8xi1> {
  %0 = "kiln.cmp"(%a, %a) <{predicate = #kiln<predicate lt>}> : (tensor<4xf32>, tensor<4xf32>) -> tensor<8xi1>
  return %0 : tensor<8xi1>
}
