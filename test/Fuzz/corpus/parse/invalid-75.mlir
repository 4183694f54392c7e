func.func private @f(tensor<4xf32>, tensor<8xf32>) -> tensor<4xf32>
func.func @vjp_result_count(%x: tensor<4xf32>, %w: tensor<8xf32>) -> (tensor<4xf32>, tensor<8xf32>) {
  %0:2 = kiln.vjp @f(%x, %w, %x) wrt [0] : (tensor<4xf32>, tensor<8xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<8xf32>)
  return %0#0, %0#1 : tensor<4xf32>, tensor<8xf32>
}
