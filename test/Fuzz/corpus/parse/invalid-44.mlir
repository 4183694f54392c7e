func.func @concat_other_dim(%a: tensor<4x8xf32>, %b: tensor<4x3xf32>, %c: tensor<5x4xf32>) -> tensor<4x15xf32> {
  %0 = kiln.concat %a, %b, %c dim = 1 : tensor<4x8xf32>, tensor<4x3xf32>, tensor<5x4xf32> -> tensor<4x15xf32>
  return %0 : tensor<4x15xf32>
}
