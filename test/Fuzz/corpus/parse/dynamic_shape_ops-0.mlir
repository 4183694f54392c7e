func.func @reshape_dynamic(%x: tensor<?x8xf32>) -> (tensor<4xf32>, tensor<f32>) {
  %r = kiln.reshape %x : tensor<?x8xf32> -> tensor<?x4xf32>
  %0 = kiln.reduce_sum %r, dims = [0] : tensor<?x4xf32> -> tensor<4xf32>
  %f = kiln.reshape %x : tensor<?x8xf32> -> tensor<?xf32>
  %1 = kiln.reduce_sum %f, dims = [0] : tensor<?xf32> -> tensor<f32>
  return %0, %1 : tensor<4xf32>, tensor<f32>
}

func.func @concat_dynamic(%x: tensor<?x8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %d = kiln.add %x, %x : tensor<?x8xf32>
  %c = kiln.concat %x, %d dim = 0 : tensor<?x8xf32>, tensor<?x8xf32> -> tensor<?x8xf32>
  %0 = kiln.reduce_sum %c, dims = [0] : tensor<?x8xf32> -> tensor<8xf32>
  %1 = kiln.reduce_max %c, dims = [0] : tensor<?x8xf32> -> tensor<8xf32>
  return %0, %1 : tensor<8xf32>, tensor<8xf32>
}

func.func @broadcast_chain(%x: tensor<?x8xf32>, %b: tensor<8xf32>) -> tensor<8xf32> {
  %bb = kiln.broadcast_in_dim %b, dims = [1] : tensor<8xf32> -> tensor<5x8xf32>
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x8xf32>
  %bd = kiln.broadcast_in_dim %bb sizes(%n), dims = [0, 1] : tensor<5x8xf32> -> tensor<?x8xf32>
  %z = kiln.add %x, %bd : tensor<?x8xf32>
  %t = kiln.reduce_sum %z, dims = [0] : tensor<?x8xf32> -> tensor<8xf32>
  return %t : tensor<8xf32>
}
