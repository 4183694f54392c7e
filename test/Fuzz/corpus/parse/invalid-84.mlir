func.func @fusion_two_blocks(%a: tensor<4xf32>) {
  "kiln.fusion_group"(%a) ({
  ^bb0(%x: tensor<4xf32>):
    "kiln.yield"() : () -> ()
  ^bb1:
    "kiln.yield"() : () -> ()
  }) : (tensor<4xf32>) -> ()
  return
}
