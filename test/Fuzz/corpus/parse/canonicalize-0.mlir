func.func @fold_elementwise() -> (tensor<4xf32>, tensor<2xf32>, tensor<4xf32>, tensor<2xi1>) {
  %two = kiln.constant dense<2.0> : tensor<4xf32>
  %three = kiln.constant dense<3.0> : tensor<4xf32>
  %sum = kiln.add %two, %three : tensor<4xf32>
  %v = kiln.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %sq = kiln.mul %v, %v : tensor<2xf32>
  %zero = kiln.constant dense<0.0> : tensor<4xf32>
  %half = kiln.sigmoid %zero : tensor<4xf32>
  %lt = kiln.cmp lt, %v, %sq : tensor<2xf32>
  return %sum, %sq, %half, %lt : tensor<4xf32>, tensor<2xf32>, tensor<4xf32>, tensor<2xi1>
}
