func.func @main(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %s = kiln.add %a, %a : tensor<2x3xf32>
  return %undefined : tensor<2x3xf32>
}
