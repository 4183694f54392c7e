func.func @reduce_no_dims(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %s = kiln.reduce_sum %x, dims = [] : tensor<4x8xf32> -> tensor<4x8xf32>
  %m = kiln.reduce_max %x, dims = [] : tensor<4x8xf32> -> tensor<4x8xf32>
  return %s, %m : tensor<4x8xf32>, tensor<4x8xf32>
}
