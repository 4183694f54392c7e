func.func @select_shapes(%m: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<8xf32>) -> tensor<4xf32> {
  %0 = "kiln.select"(%m, %a, %b) : (tensor<4xi1>, tensor<4xf32>, tensor<8xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
