func.func @main(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %t = kiln.transpose %a, perm = [0, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  return %t : tensor<3x2xf32>
}
