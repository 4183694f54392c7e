func.func @reduce_negative(%a: tensor<4x8xf32>) -> tensor<4xf32> {
  %0 = kiln.reduce_max %a, dims = [-1] : tensor<4x8xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
