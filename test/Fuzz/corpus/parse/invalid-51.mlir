func.func @reduce_range(%a: tensor<4x8xf32>) -> tensor<4xf32> {
  %0 = kiln.reduce_sum %a, dims = [2] : tensor<4x8xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
