func.func @reduce_i1(%a: tensor<4xi1>) -> tensor<i1> {
  %0 = kiln.reduce_sum %a, dims = [0] : tensor<4xi1> -> tensor<i1>
  return %0 : tensor<i1>
}
