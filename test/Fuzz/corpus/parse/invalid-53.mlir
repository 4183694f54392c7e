func.func @reduce_sum_result(%a: tensor<4x8xf32>) -> tensor<4x1xf32> {
  %0 = kiln.reduce_sum %a, dims = [1] : tensor<4x8xf32> -> tensor<4x1xf32>
  return %0 : tensor<4x1xf32>
}
