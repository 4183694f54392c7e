module @g {
}
func.func @vjp_not_func(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = kiln.vjp @g(%x, %x) wrt [0] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
