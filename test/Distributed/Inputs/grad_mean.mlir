func.func @main(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %t = kiln.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %m = kiln.all_reduce mean, %t group = 0 : tensor<4x8xf32>
  %y = kiln.matmul %m, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
