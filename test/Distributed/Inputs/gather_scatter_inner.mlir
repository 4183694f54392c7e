func.func @main(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %t = kiln.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %g = kiln.all_gather %t dim = 1 group = 0 : tensor<4x8xf32> -> tensor<4x8xf32>
  %r = kiln.reduce_scatter sum, %g dim = 1 group = 0 : tensor<4x8xf32> -> tensor<4x8xf32>
  %y = kiln.matmul %r, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
