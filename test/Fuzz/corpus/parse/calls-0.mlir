func.func @main(%x: tensor<64x100xf32>, %y: tensor<64x100xf32>)
    -> (tensor<64x100xf32>, tensor<64x100xf32>) {
  %p:2 = func.call @helper(%x, %y) : (tensor<64x100xf32>, tensor<64x100xf32>) -> (tensor<64x100xf32>, tensor<64x100xf32>)
  %q = func.call @square(%p#1) : (tensor<64x100xf32>) -> tensor<64x100xf32>
  %r:2 = func.call @helper(%q, %p#0) : (tensor<64x100xf32>, tensor<64x100xf32>) -> (tensor<64x100xf32>, tensor<64x100xf32>)
  return %r#0, %q : tensor<64x100xf32>, tensor<64x100xf32>
}

func.func private @helper(%a: tensor<64x100xf32>, %b: tensor<64x100xf32>)
    -> (tensor<64x100xf32>, tensor<64x100xf32>) {
  %0 = kiln.mul %a, %b : tensor<64x100xf32>
  %1 = kiln.tanh %0 : tensor<64x100xf32>
  return %0, %1 : tensor<64x100xf32>, tensor<64x100xf32>
}

func.func @square(%a: tensor<64x100xf32>) -> tensor<64x100xf32> {
  %0 = kiln.mul %a, %a : tensor<64x100xf32>
  return %0 : tensor<64x100xf32>
}
