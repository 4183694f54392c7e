func.func @main(%a: tensor<144115188075855872xf32>) -> tensor<144115188075855872xf32> {
  return %a : tensor<144115188075855872xf32>
}
