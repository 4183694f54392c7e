func.func @select_f32_pred(%p: tensor<4xf32>, %a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = kiln.select %p, %a, %a : tensor<4xf32>, tensor<4xf32>
  return %0 : tensor<4xf32>
}
