func.func @exp_i1(%a: tensor<4xi1>) -> tensor<4xi1> {
  %0 = kiln.exp %a : tensor<4xi1>
  return %0 : tensor<4xi1>
}
