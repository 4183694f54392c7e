func.func @vjp_unknown(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = kiln.vjp @nope(%x, %x) wrt [0] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
