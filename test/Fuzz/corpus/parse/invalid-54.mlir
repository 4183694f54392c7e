func.func @reduce_max_result(%a: tensor<4x8xf32>) -> tensor<8xf32> {
  %0 = kiln.reduce_max %a, dims = [1] : tensor<4x8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
