func.func @unequal(%x: tensor<4x8xf32>, %y: tensor<4x3xf32>, %z: tensor<2x11xf32>)
    -> tensor<6x11xf32> attributes {llvm.emit_c_interface} {
  %a = kiln.exp %x : tensor<4x8xf32>
  %b = kiln.tanh %y : tensor<4x3xf32>
  %k = kiln.concat %a, %b dim = 1 : tensor<4x8xf32>, tensor<4x3xf32> -> tensor<4x11xf32>
  %n = kiln.neg %z : tensor<2x11xf32>
  %j = kiln.concat %k, %n dim = 0 : tensor<4x11xf32>, tensor<2x11xf32> -> tensor<6x11xf32>
  return %j : tensor<6x11xf32>
}
