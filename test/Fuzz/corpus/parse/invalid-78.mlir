func.func private @f(tensor<4xi1>, tensor<4xf32>) -> tensor<4xf32>
func.func @vjp_i1_gradient(%p: tensor<4xi1>, %x: tensor<4xf32>) -> tensor<4xi1> {
  %0 = kiln.vjp @f(%p, %x, %x) wrt [0] : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}
