func.func @fusion_arg_type(%a: tensor<4xf32>) -> tensor<4xf16> {
  %0 = kiln.fusion_group %a : (tensor<4xf32>) -> tensor<4xf16> {
  ^bb0(%x: tensor<4xf16>):
    kiln.yield %x : tensor<4xf16>
  }
  return %0 : tensor<4xf16>
}
