// The LSTM cell forward, and its backward with respect to every input, for
// test/Install: compiled ahead of time by the installed kiln-compile, run by
// run_module (the runtime alone), checked against the installed kiln-run.
func.func @lstm_forward(%x: tensor<4x16xf32>, %h: tensor<4x32xf32>, %c: tensor<4x32xf32>,
                     %wx: tensor<128x16xf32>, %wh: tensor<128x32xf32>, %b: tensor<128xf32>)
    -> (tensor<4x32xf32>, tensor<4x32xf32>) {
  %xw = kiln.matmul %x, %wx {transpose_b = true} : tensor<4x16xf32>, tensor<128x16xf32> -> tensor<4x128xf32>
  %hw = kiln.matmul %h, %wh {transpose_b = true} : tensor<4x32xf32>, tensor<128x32xf32> -> tensor<4x128xf32>
  %bb = kiln.broadcast_in_dim %b, dims = [1] : tensor<128xf32> -> tensor<4x128xf32>
  %s = kiln.add %xw, %hw : tensor<4x128xf32>
  %gates = kiln.add %s, %bb : tensor<4x128xf32>
  %i = kiln.slice %gates, offsets = [0, 0], sizes = [4, 32] : tensor<4x128xf32> -> tensor<4x32xf32>
  %f = kiln.slice %gates, offsets = [0, 32], sizes = [4, 32] : tensor<4x128xf32> -> tensor<4x32xf32>
  %g = kiln.slice %gates, offsets = [0, 64], sizes = [4, 32] : tensor<4x128xf32> -> tensor<4x32xf32>
  %o = kiln.slice %gates, offsets = [0, 96], sizes = [4, 32] : tensor<4x128xf32> -> tensor<4x32xf32>
  %si = kiln.sigmoid %i : tensor<4x32xf32>
  %sf = kiln.sigmoid %f : tensor<4x32xf32>
  %tg = kiln.tanh %g : tensor<4x32xf32>
  %so = kiln.sigmoid %o : tensor<4x32xf32>
  %fc = kiln.mul %sf, %c : tensor<4x32xf32>
  %ig = kiln.mul %si, %tg : tensor<4x32xf32>
  %c2 = kiln.add %fc, %ig : tensor<4x32xf32>
  %tc = kiln.tanh %c2 : tensor<4x32xf32>
  %h2 = kiln.mul %so, %tc : tensor<4x32xf32>
  return %h2, %c2 : tensor<4x32xf32>, tensor<4x32xf32>
}
func.func @lstm_backward(%x: tensor<4x16xf32>, %h: tensor<4x32xf32>, %c: tensor<4x32xf32>,
                     %wx: tensor<128x16xf32>, %wh: tensor<128x32xf32>, %b: tensor<128xf32>,
                     %ct_h: tensor<4x32xf32>, %ct_c: tensor<4x32xf32>)
    -> (tensor<4x16xf32>, tensor<4x32xf32>, tensor<4x32xf32>, tensor<128x16xf32>,
        tensor<128x32xf32>, tensor<128xf32>) {
  %g:6 = kiln.vjp @lstm_forward(%x, %h, %c, %wx, %wh, %b, %ct_h, %ct_c) wrt [0, 1, 2, 3, 4, 5]
      : (tensor<4x16xf32>, tensor<4x32xf32>, tensor<4x32xf32>, tensor<128x16xf32>,
         tensor<128x32xf32>, tensor<128xf32>, tensor<4x32xf32>, tensor<4x32xf32>)
      -> (tensor<4x16xf32>, tensor<4x32xf32>, tensor<4x32xf32>, tensor<128x16xf32>,
          tensor<128x32xf32>, tensor<128xf32>)
  return %g#0, %g#1, %g#2, %g#3, %g#4, %g#5
      : tensor<4x16xf32>, tensor<4x32xf32>, tensor<4x32xf32>, tensor<128x16xf32>,
        tensor<128x32xf32>, tensor<128xf32>
}
