func.func @main(%x: tensor<5x3xf32>, %w: tensor<3x?xf32>) -> tensor<5x?xf32> {
  %y = kiln.matmul %x, %w : tensor<5x3xf32>, tensor<3x?xf32> -> tensor<5x?xf32>
  return %y : tensor<5x?xf32>
}
