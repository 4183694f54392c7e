func.func @fusion_isolated(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = kiln.fusion_group %a : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    %1 = kiln.add %x, %a : tensor<4xf32>
    kiln.yield %1 : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}
