func.func @main(%a: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %t = kiln.tanh %a : tensor<?x3xf32>
  return %t : tensor<?x3xf32>
}
