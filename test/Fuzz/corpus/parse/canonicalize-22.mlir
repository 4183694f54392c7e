func.func @cse(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a = kiln.tanh %x : tensor<4xf32>
  %b = kiln.tanh %x : tensor<4xf32>
  return %a, %b : tensor<4xf32>, tensor<4xf32>
}
