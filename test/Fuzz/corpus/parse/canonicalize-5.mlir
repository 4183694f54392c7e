func.func @identities(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %zero = kiln.constant dense<0.0> : tensor<4xf32>
  %one = kiln.constant dense<1.0> : tensor<4xf32>
  %a = kiln.add %x, %zero : tensor<4xf32>
  %b = kiln.add %zero, %x : tensor<4xf32>
  %c = kiln.sub %x, %zero : tensor<4xf32>
  %d = kiln.mul %x, %one : tensor<4xf32>
  %e = kiln.mul %one, %x : tensor<4xf32>
  %f = kiln.div %x, %one : tensor<4xf32>
  return %a, %b, %c, %d, %e, %f : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
