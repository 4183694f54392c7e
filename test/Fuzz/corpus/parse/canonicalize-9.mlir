func.func @pow_convert(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf64>) {
  %one = kiln.constant dense<1.0> : tensor<4xf32>
  %p = kiln.pow %x, %one : tensor<4xf32>
  %c = kiln.convert %x : tensor<4xf32> -> tensor<4xf32>
  %k = kiln.constant dense<1.5> : tensor<4xf32>
  %w = kiln.convert %k : tensor<4xf32> -> tensor<4xf64>
  return %p, %c, %w : tensor<4xf32>, tensor<4xf32>, tensor<4xf64>
}
