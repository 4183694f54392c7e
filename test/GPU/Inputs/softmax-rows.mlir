// Softmax over the rows of a 64x1000 matrix: a max, an exp, a sum, a divide.
func.func @main(%x: tensor<64x1000xf32>) -> tensor<64x1000xf32> {
  %m = kiln.reduce_max %x, dims = [1] : tensor<64x1000xf32> -> tensor<64xf32>
  %mb = kiln.broadcast_in_dim %m, dims = [0] : tensor<64xf32> -> tensor<64x1000xf32>
  %d = kiln.sub %x, %mb : tensor<64x1000xf32>
  %e = kiln.exp %d : tensor<64x1000xf32>
  %s = kiln.reduce_sum %e, dims = [1] : tensor<64x1000xf32> -> tensor<64xf32>
  %sb = kiln.broadcast_in_dim %s, dims = [0] : tensor<64xf32> -> tensor<64x1000xf32>
  %y = kiln.div %e, %sb : tensor<64x1000xf32>
  return %y : tensor<64x1000xf32>
}
