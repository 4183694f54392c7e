func.func @concat_dim_negative(%a: tensor<4x8xf32>) -> tensor<4x16xf32> {
  %0 = kiln.concat %a, %a dim = -1 : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}
