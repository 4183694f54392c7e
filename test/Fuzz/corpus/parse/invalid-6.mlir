func.func @cmp_i1(%a: tensor<4xi1>) -> tensor<4xi1> {
  %0 = kiln.cmp eq, %a, %a : tensor<4xi1>
  return %0 : tensor<4xi1>
}
