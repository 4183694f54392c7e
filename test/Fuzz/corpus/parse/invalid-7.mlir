func.func @cmp_result_f32(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "kiln.cmp"(%a, %a) <{predicate = #kiln<predicate eq>}> : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
