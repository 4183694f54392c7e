func.func @unary_special(%x: tensor<9xf32>)
    -> (tensor<9xf32>, tensor<9xf32>, tensor<9xf32>, tensor<9xf32>,
        tensor<9xf32>, tensor<9xf32>, tensor<9xf32>, tensor<9xf32>,
        tensor<9xf32>, tensor<9xf32>) {
  %0 = kiln.relu %x : tensor<9xf32>
  %1 = kiln.sigmoid %x : tensor<9xf32>
  %2 = kiln.exp %x : tensor<9xf32>
  %3 = kiln.sqrt %x : tensor<9xf32>
  %4 = kiln.rsqrt %x : tensor<9xf32>
  %5 = kiln.log %x : tensor<9xf32>
  %6 = kiln.tanh %x : tensor<9xf32>
  %7 = kiln.abs %x : tensor<9xf32>
  %8 = kiln.neg %x : tensor<9xf32>
  %9 = kiln.reciprocal %x : tensor<9xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9
      : tensor<9xf32>, tensor<9xf32>, tensor<9xf32>, tensor<9xf32>,
        tensor<9xf32>, tensor<9xf32>, tensor<9xf32>, tensor<9xf32>,
        tensor<9xf32>, tensor<9xf32>
}

func.func @trig(%x: tensor<5xf64>) -> (tensor<5xf64>, tensor<5xf64>) {
  %0 = kiln.sin %x : tensor<5xf64>
  %1 = kiln.cos %x : tensor<5xf64>
  return %0, %1 : tensor<5xf64>, tensor<5xf64>
}

func.func @binary_special(%a: tensor<8xf32>, %b: tensor<8xf32>)
    -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>,
        tensor<8xf32>, tensor<8xf32>) {
  %0 = kiln.add %a, %b : tensor<8xf32>
  %1 = kiln.sub %a, %b : tensor<8xf32>
  %2 = kiln.mul %a, %b : tensor<8xf32>
  %3 = kiln.div %a, %b : tensor<8xf32>
  %4 = kiln.max %a, %b : tensor<8xf32>
  %5 = kiln.min %a, %b : tensor<8xf32>
  return %0, %1, %2, %3, %4, %5
      : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>,
        tensor<8xf32>, tensor<8xf32>
}

func.func @pow_special(%a: tensor<8xf32>, %b: tensor<8xf32>, %c: tensor<3xf32>,
                       %d: tensor<3xf32>)
    -> (tensor<8xf32>, tensor<8xf64>, tensor<3xf32>) {
  %0 = kiln.pow %a, %b : tensor<8xf32>
  %a64 = kiln.convert %a : tensor<8xf32> -> tensor<8xf64>
  %b64 = kiln.convert %b : tensor<8xf32> -> tensor<8xf64>
  %1 = kiln.pow %a64, %b64 : tensor<8xf64>
  %2 = kiln.pow %c, %d : tensor<3xf32>
  return %0, %1, %2 : tensor<8xf32>, tensor<8xf64>, tensor<3xf32>
}

func.func @compare_special(%a: tensor<8xf32>, %b: tensor<8xf32>)
    -> (tensor<8xi1>, tensor<8xi1>, tensor<8xi1>, tensor<8xi1>,
        tensor<8xi1>, tensor<8xi1>, tensor<8xi1>, tensor<8xf32>) {
  %0 = kiln.cmp eq, %a, %b : tensor<8xf32>
  %1 = kiln.cmp ne, %a, %b : tensor<8xf32>
  %2 = kiln.cmp lt, %a, %b : tensor<8xf32>
  %3 = kiln.cmp le, %a, %b : tensor<8xf32>
  %4 = kiln.cmp gt, %a, %b : tensor<8xf32>
  %5 = kiln.cmp ge, %a, %b : tensor<8xf32>
  %6 = kiln.cmp eq, %a, %a : tensor<8xf32>
  %7 = kiln.select %2, %a, %b : tensor<8xi1>, tensor<8xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7
      : tensor<8xi1>, tensor<8xi1>, tensor<8xi1>, tensor<8xi1>,
        tensor<8xi1>, tensor<8xi1>, tensor<8xi1>, tensor<8xf32>
}

func.func @matmul_2x2(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>)
    -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>) {
  %0 = kiln.matmul %a, %b : tensor<2x2xf32>, tensor<2x2xf32> -> tensor<2x2xf32>
  %1 = kiln.matmul %a, %b {transpose_a = true} : tensor<2x2xf32>, tensor<2x2xf32> -> tensor<2x2xf32>
  %2 = kiln.matmul %a, %b {transpose_b = true} : tensor<2x2xf32>, tensor<2x2xf32> -> tensor<2x2xf32>
  %3 = kiln.matmul %a, %b {transpose_a = true, transpose_b = true} : tensor<2x2xf32>, tensor<2x2xf32> -> tensor<2x2xf32>
  return %0, %1, %2, %3 : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>,
      tensor<2x2xf32>
}

func.func @reduce_infs(%x: tensor<2x3xf32>)
    -> (tensor<3xf32>, tensor<2xf32>, tensor<f32>, tensor<2xf32>,
        tensor<3xf32>) {
  %0 = kiln.reduce_max %x, dims = [0] : tensor<2x3xf32> -> tensor<3xf32>
  %1 = kiln.reduce_max %x, dims = [1] : tensor<2x3xf32> -> tensor<2xf32>
  %2 = kiln.reduce_max %x, dims = [0, 1] : tensor<2x3xf32> -> tensor<f32>
  %3 = kiln.reduce_sum %x, dims = [1] : tensor<2x3xf32> -> tensor<2xf32>
  %4 = kiln.sigmoid %0 : tensor<3xf32>
  return %0, %1, %2, %3, %4 : tensor<3xf32>, tensor<2xf32>, tensor<f32>,
      tensor<2xf32>, tensor<3xf32>
}

func.func @rounding(%x: tensor<10xf32>)
    -> (tensor<10xbf16>, tensor<10xf32>, tensor<10xi1>, tensor<10xf64>) {
  %0 = kiln.convert %x : tensor<10xf32> -> tensor<10xbf16>
  %h = kiln.convert %x : tensor<10xf32> -> tensor<10xf16>
  %1 = kiln.convert %h : tensor<10xf16> -> tensor<10xf32>
  %2 = kiln.convert %x : tensor<10xf32> -> tensor<10xi1>
  %3 = kiln.convert %x : tensor<10xf32> -> tensor<10xf64>
  return %0, %1, %2, %3 : tensor<10xbf16>, tensor<10xf32>, tensor<10xi1>,
      tensor<10xf64>
}

func.func @softmax_rows(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %m = kiln.reduce_max %x, dims = [1] : tensor<2x3xf32> -> tensor<2xf32>
  %mb = kiln.broadcast_in_dim %m, dims = [0] : tensor<2xf32> -> tensor<2x3xf32>
  %d = kiln.sub %x, %mb : tensor<2x3xf32>
  %e = kiln.exp %d : tensor<2x3xf32>
  %s = kiln.reduce_sum %e, dims = [1] : tensor<2x3xf32> -> tensor<2xf32>
  %sb = kiln.broadcast_in_dim %s, dims = [0] : tensor<2xf32> -> tensor<2x3xf32>
  %r = kiln.div %e, %sb : tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

func.func @bool_input(%p: tensor<3xi1>) -> (tensor<3xf32>, tensor<3xi1>) {
  %0 = kiln.convert %p : tensor<3xi1> -> tensor<3xf32>
  %z = kiln.constant dense<0.0> : tensor<3xf32>
  %1 = kiln.cmp eq, %0, %z : tensor<3xf32>
  return %0, %1 : tensor<3xf32>, tensor<3xi1>
}
