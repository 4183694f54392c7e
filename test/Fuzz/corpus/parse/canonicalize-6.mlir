func.func @no_fold_mul_zero(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %zero = kiln.constant dense<0.0> : tensor<4xf32>
  %one = kiln.constant dense<1.0> : tensor<4xf32>
  %a = kiln.mul %x, %zero : tensor<4xf32>
  %b = kiln.sub %zero, %x : tensor<4xf32>
  %c = kiln.div %one, %x : tensor<4xf32>
  return %a, %b, %c : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
