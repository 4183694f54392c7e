func.func @fusion_arg_count(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = kiln.fusion_group %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    kiln.yield %x : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}
