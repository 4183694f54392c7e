// The LSTM cell's pointwise forward and its backward (kiln.vjp), as bench/lstm_cell/run.py writes them at B=8, H=16: the fault-injection programs.
func.func private @cell(%gates: tensor<8x64xf32>, %c: tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>) {
  %i0 = kiln.slice %gates, offsets = [0, 0], sizes = [8, 16] : tensor<8x64xf32> -> tensor<8x16xf32>
  %f0 = kiln.slice %gates, offsets = [0, 16], sizes = [8, 16] : tensor<8x64xf32> -> tensor<8x16xf32>
  %g0 = kiln.slice %gates, offsets = [0, 32], sizes = [8, 16] : tensor<8x64xf32> -> tensor<8x16xf32>
  %o0 = kiln.slice %gates, offsets = [0, 48], sizes = [8, 16] : tensor<8x64xf32> -> tensor<8x16xf32>
  %i = kiln.sigmoid %i0 : tensor<8x16xf32>
  %f = kiln.sigmoid %f0 : tensor<8x16xf32>
  %g = kiln.tanh %g0 : tensor<8x16xf32>
  %o = kiln.sigmoid %o0 : tensor<8x16xf32>
  %fc = kiln.mul %f, %c : tensor<8x16xf32>
  %ig = kiln.mul %i, %g : tensor<8x16xf32>
  %c2 = kiln.add %fc, %ig : tensor<8x16xf32>
  %tc = kiln.tanh %c2 : tensor<8x16xf32>
  %h2 = kiln.mul %o, %tc : tensor<8x16xf32>
  return %h2, %c2 : tensor<8x16xf32>, tensor<8x16xf32>
}
func.func @main(%gates: tensor<8x64xf32>, %c: tensor<8x16xf32>, %dh: tensor<8x16xf32>, %dc: tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x64xf32>, tensor<8x16xf32>) {
  %r:2 = func.call @cell(%gates, %c) : (tensor<8x64xf32>, tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>)
  %g:2 = kiln.vjp @cell(%gates, %c, %dh, %dc) wrt [0, 1] : (tensor<8x64xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>) -> (tensor<8x64xf32>, tensor<8x16xf32>)
  return %r#0, %r#1, %g#0, %g#1 : tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x64xf32>, tensor<8x16xf32>
}
