func.func @fusion_no_yield(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = kiln.fusion_group %a : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    %1 = kiln.neg %x : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}
