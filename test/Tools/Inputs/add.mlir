func.func @main(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %s = kiln.add %a, %b : tensor<2x3xf32>
  return %s : tensor<2x3xf32>
}
func.func @other(%a: tensor<?x3xf32>) -> tensor<3xf32> {
  %s = kiln.reduce_sum %a, dims = [0] : tensor<?x3xf32> -> tensor<3xf32>
  return %s : tensor<3xf32>
}
