func.func private @f(tensor<4xf32>, tensor<8xf32>) -> tensor<4xf32>
func.func @vjp_cotangent_type(%x: tensor<4xf32>, %w: tensor<8xf32>) -> tensor<4xf32> {
  %0 = kiln.vjp @f(%x, %w, %w) wrt [0] : (tensor<4xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
