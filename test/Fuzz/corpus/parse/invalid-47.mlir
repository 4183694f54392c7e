func.func @concat_result(%a: tensor<4x8xf32>, %b: tensor<4x3xf32>) -> tensor<4x12xf32> {
  %0 = kiln.concat %a, %b dim = 1 : tensor<4x8xf32>, tensor<4x3xf32> -> tensor<4x12xf32>
  return %0 : tensor<4x12xf32>
}
