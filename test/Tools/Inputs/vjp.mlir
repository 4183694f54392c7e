func.func @f(%x: tensor<2xf32>, %ct: tensor<2xf32>) -> tensor<2xf32> {
  %g = kiln.vjp @f(%x, %ct, %ct) wrt [0] : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %g : tensor<2xf32>
}
func.func @main(%x: tensor<2xf32>, %ct: tensor<2xf32>) -> tensor<2xf32> {
  %g = kiln.vjp @f(%x, %ct, %ct) wrt [0] : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %g : tensor<2xf32>
}
