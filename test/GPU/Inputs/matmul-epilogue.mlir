// A dense layer: a matmul, then its bias add and gelu as the epilogue.
func.func @main(%x: tensor<128x256xf32>, %w: tensor<512x256xf32>, %b: tensor<512xf32>) -> tensor<128x512xf32> {
  %y = kiln.matmul %x, %w {transpose_b = true} : tensor<128x256xf32>, tensor<512x256xf32> -> tensor<128x512xf32>
  %bb = kiln.broadcast_in_dim %b, dims = [1] : tensor<512xf32> -> tensor<128x512xf32>
  %z = kiln.add %y, %bb : tensor<128x512xf32>
  %g = kiln.gelu %z {approximate = true} : tensor<128x512xf32>
  return %g : tensor<128x512xf32>
}
