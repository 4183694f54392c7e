func.func @cmp_operands(%a: tensor<4xf32>, %b: tensor<8xf32>) -> tensor<4xi1> {
  %0 = "kiln.cmp"(%a, %b) <{predicate = #kiln<predicate lt>}> : (tensor<4xf32>, tensor<8xf32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}
