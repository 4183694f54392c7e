func.func @involutions(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %n1 = kiln.neg %x : tensor<4xf32>
  %n2 = kiln.neg %n1 : tensor<4xf32>
  %r1 = kiln.reciprocal %x : tensor<4xf32>
  %r2 = kiln.reciprocal %r1 : tensor<4xf32>
  %a1 = kiln.abs %x : tensor<4xf32>
  %a2 = kiln.abs %a1 : tensor<4xf32>
  %l1 = kiln.relu %x : tensor<4xf32>
  %l2 = kiln.relu %l1 : tensor<4xf32>
  return %n2, %r2, %a2, %l2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
