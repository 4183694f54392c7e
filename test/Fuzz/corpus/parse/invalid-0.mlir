func.func @add_i32(%a: tensor<4xi32>) -> tensor<4xi32> {
  %0 = kiln.add %a, %a : tensor<4xi32>
  return %0 : tensor<4xi32>
}
