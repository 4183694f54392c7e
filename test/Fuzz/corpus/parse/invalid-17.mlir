func.func @cmp_predicate(%a: tensor<4xf32>) -> tensor<4xi1> {
  %0 = kiln.cmp foo, %a, %a : tensor<4xf32>
  return %0 : tensor<4xi1>
}
