func.func @dyn_stats(%x: tensor<?x8xf32>)
    -> (tensor<8xf32>, tensor<8xf32>, tensor<f32>, tensor<8xf32>,
        tensor<8x8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %0 = kiln.reduce_sum %x, dims = [0] : tensor<?x8xf32> -> tensor<8xf32>
  %1 = kiln.reduce_max %x, dims = [0] : tensor<?x8xf32> -> tensor<8xf32>
  %2 = kiln.reduce_sum %x, dims = [0, 1] : tensor<?x8xf32> -> tensor<f32>
  %eq = kiln.cmp eq, %x, %x : tensor<?x8xf32>
  %ones = kiln.convert %eq : tensor<?x8xi1> -> tensor<?x8xf32>
  %5 = kiln.reduce_sum %ones, dims = [0] : tensor<?x8xf32> -> tensor<8xf32>
  %3 = kiln.div %0, %5 : tensor<8xf32>
  %4 = kiln.matmul %x, %x {transpose_a = true} : tensor<?x8xf32>, tensor<?x8xf32> -> tensor<8x8xf32>
  %n = kiln.neg %x : tensor<?x8xf32>
  %sp = kiln.sigmoid %x : tensor<?x8xf32>
  %sn = kiln.sigmoid %n : tensor<?x8xf32>
  %s = kiln.add %sp, %sn : tensor<?x8xf32>
  %ss = kiln.reduce_sum %s, dims = [0] : tensor<?x8xf32> -> tensor<8xf32>
  %6 = kiln.div %ss, %5 : tensor<8xf32>
  return %0, %1, %2, %3, %4, %5, %6
      : tensor<8xf32>, tensor<8xf32>, tensor<f32>, tensor<8xf32>,
        tensor<8x8xf32>, tensor<8xf32>, tensor<8xf32>
}

func.func @dyn_empty(%x: tensor<?x8xf32>)
    -> (tensor<8xf32>, tensor<8xf32>, tensor<8x8xf32>) {
  %e = kiln.exp %x : tensor<?x8xf32>
  %0 = kiln.reduce_sum %e, dims = [0] : tensor<?x8xf32> -> tensor<8xf32>
  %1 = kiln.reduce_max %x, dims = [0] : tensor<?x8xf32> -> tensor<8xf32>
  %2 = kiln.matmul %x, %e {transpose_a = true} : tensor<?x8xf32>, tensor<?x8xf32> -> tensor<8x8xf32>
  return %0, %1, %2 : tensor<8xf32>, tensor<8xf32>, tensor<8x8xf32>
}

func.func @dyn_layer(%x: tensor<?x8xf32>, %w: tensor<8x4xf32>)
    -> (tensor<f32>, tensor<4xf32>) {
  %m = kiln.matmul %x, %w : tensor<?x8xf32>, tensor<8x4xf32> -> tensor<?x4xf32>
  %r = kiln.relu %m : tensor<?x4xf32>
  %q = kiln.mul %r, %r : tensor<?x4xf32>
  %0 = kiln.reduce_sum %q, dims = [0, 1] : tensor<?x4xf32> -> tensor<f32>
  %t = kiln.tanh %m : tensor<?x4xf32>
  %1 = kiln.reduce_sum %t, dims = [0] : tensor<?x4xf32> -> tensor<4xf32>
  return %0, %1 : tensor<f32>, tensor<4xf32>
}

func.func @dyn_views(%x: tensor<?x8xf32>)
    -> (tensor<2x8xf32>, tensor<8xf32>, tensor<3x8xf32>, tensor<16xf32>) {
  %0 = kiln.slice %x, offsets = [0, 0], sizes = [2, 8] : tensor<?x8xf32> -> tensor<2x8xf32>
  %t = kiln.transpose %x, perm = [1, 0] : tensor<?x8xf32> -> tensor<8x?xf32>
  %1 = kiln.reduce_max %t, dims = [1] : tensor<8x?xf32> -> tensor<8xf32>
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x8xf32>
  %b = kiln.broadcast_in_dim %x sizes(%n), dims = [0, 2] : tensor<?x8xf32> -> tensor<?x3x8xf32>
  %2 = kiln.reduce_sum %b, dims = [0] : tensor<?x3x8xf32> -> tensor<3x8xf32>
  %id = kiln.broadcast_in_dim %x sizes(%n), dims = [0, 1] : tensor<?x8xf32> -> tensor<?x8xf32>
  %d = kiln.add %x, %id : tensor<?x8xf32>
  %c = kiln.concat %x, %d dim = 1 : tensor<?x8xf32>, tensor<?x8xf32> -> tensor<?x16xf32>
  %3 = kiln.reduce_sum %c, dims = [0] : tensor<?x16xf32> -> tensor<16xf32>
  return %0, %1, %2, %3 : tensor<2x8xf32>, tensor<8xf32>, tensor<3x8xf32>,
      tensor<16xf32>
}
