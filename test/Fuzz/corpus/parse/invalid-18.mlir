func.func @select_pred_shape(%p: tensor<8xi1>, %a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = kiln.select %p, %a, %a : tensor<8xi1>, tensor<4xf32>
  return %0 : tensor<4xf32>
}
