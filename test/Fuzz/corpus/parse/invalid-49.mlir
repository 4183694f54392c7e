func.func @reduce_unsorted(%a: tensor<4x8xf32>) -> tensor<f32> {
  %0 = kiln.reduce_sum %a, dims = [1, 0] : tensor<4x8xf32> -> tensor<f32>
  return %0 : tensor<f32>
}
