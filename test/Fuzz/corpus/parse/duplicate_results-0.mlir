func.func @same_value_twice(%a: tensor<3x5xf32>) -> (tensor<3x5xf32>, tensor<3x5xf32>) {
  %0 = kiln.exp %a : tensor<3x5xf32>
  return %0, %0 : tensor<3x5xf32>, tensor<3x5xf32>
}

func.func @cse_merged(%a: tensor<64x1000xf32>, %b: tensor<64x1000xf32>)
    -> (tensor<64x1000xf32>, tensor<64x1000xf32>, tensor<64x1000xf32>) {
  %0 = kiln.add %a, %b : tensor<64x1000xf32>
  %1 = kiln.add %a, %b : tensor<64x1000xf32>
  %2 = kiln.mul %0, %1 : tensor<64x1000xf32>
  return %0, %1, %2 : tensor<64x1000xf32>, tensor<64x1000xf32>, tensor<64x1000xf32>
}

func.func @matmul_twice(%a: tensor<3x5xf32>, %b: tensor<5x2xf32>)
    -> (tensor<3x2xf32>, tensor<3x2xf32>) {
  %0 = kiln.matmul %a, %b : tensor<3x5xf32>, tensor<5x2xf32> -> tensor<3x2xf32>
  %1 = kiln.matmul %a, %b {transpose_a = false, transpose_b = false} : tensor<3x5xf32>, tensor<5x2xf32> -> tensor<3x2xf32>
  return %0, %1 : tensor<3x2xf32>, tensor<3x2xf32>
}
