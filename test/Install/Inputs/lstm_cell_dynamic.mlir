// The LSTM cell with a dynamic batch, forward and backward
// (bench/compile_cache/lstm_cell.py 4 16 32 --dynamic), for test/Install:
// one module, run by run_module at several batch sizes.
func.func @lstm_cell(%x: tensor<?x16xf32>, %h: tensor<?x32xf32>, %c: tensor<?x32xf32>, %wx: tensor<128x16xf32>, %wh: tensor<128x32xf32>, %b: tensor<128xf32>) -> (tensor<?x32xf32>, tensor<?x32xf32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x16xf32>
  %xw = kiln.matmul %x, %wx {transpose_b = true} : tensor<?x16xf32>, tensor<128x16xf32> -> tensor<?x128xf32>
  %hw = kiln.matmul %h, %wh {transpose_b = true} : tensor<?x32xf32>, tensor<128x32xf32> -> tensor<?x128xf32>
  %s = kiln.add %xw, %hw : tensor<?x128xf32>
  %bb = kiln.broadcast_in_dim %b sizes(%n), dims = [1] : tensor<128xf32> -> tensor<?x128xf32>
  %gates = kiln.add %s, %bb : tensor<?x128xf32>
  %i0 = kiln.slice %gates, offsets = [0, 0], sizes = [-1, 32] : tensor<?x128xf32> -> tensor<?x32xf32>
  %f0 = kiln.slice %gates, offsets = [0, 32], sizes = [-1, 32] : tensor<?x128xf32> -> tensor<?x32xf32>
  %g0 = kiln.slice %gates, offsets = [0, 64], sizes = [-1, 32] : tensor<?x128xf32> -> tensor<?x32xf32>
  %o0 = kiln.slice %gates, offsets = [0, 96], sizes = [-1, 32] : tensor<?x128xf32> -> tensor<?x32xf32>
  %i = kiln.sigmoid %i0 : tensor<?x32xf32>
  %f = kiln.sigmoid %f0 : tensor<?x32xf32>
  %g = kiln.tanh %g0 : tensor<?x32xf32>
  %o = kiln.sigmoid %o0 : tensor<?x32xf32>
  %fc = kiln.mul %f, %c : tensor<?x32xf32>
  %ig = kiln.mul %i, %g : tensor<?x32xf32>
  %c2 = kiln.add %fc, %ig : tensor<?x32xf32>
  %tc = kiln.tanh %c2 : tensor<?x32xf32>
  %h2 = kiln.mul %o, %tc : tensor<?x32xf32>
  return %h2, %c2 : tensor<?x32xf32>, tensor<?x32xf32>
}
func.func @lstm_cell_grad(%x: tensor<?x16xf32>, %h: tensor<?x32xf32>, %c: tensor<?x32xf32>, %wx: tensor<128x16xf32>, %wh: tensor<128x32xf32>, %b: tensor<128xf32>, %ct_h: tensor<?x32xf32>, %ct_c: tensor<?x32xf32>)
    -> (tensor<?x32xf32>, tensor<?x32xf32>, tensor<?x16xf32>, tensor<?x32xf32>, tensor<?x32xf32>, tensor<128x16xf32>, tensor<128x32xf32>, tensor<128xf32>) {
  %y:2 = func.call @lstm_cell(%x, %h, %c, %wx, %wh, %b) : (tensor<?x16xf32>, tensor<?x32xf32>, tensor<?x32xf32>, tensor<128x16xf32>, tensor<128x32xf32>, tensor<128xf32>) -> (tensor<?x32xf32>, tensor<?x32xf32>)
  %d:6 = kiln.vjp @lstm_cell(%x, %h, %c, %wx, %wh, %b, %ct_h, %ct_c) wrt [0, 1, 2, 3, 4, 5] : (tensor<?x16xf32>, tensor<?x32xf32>, tensor<?x32xf32>, tensor<128x16xf32>, tensor<128x32xf32>, tensor<128xf32>, tensor<?x32xf32>, tensor<?x32xf32>) -> (tensor<?x16xf32>, tensor<?x32xf32>, tensor<?x32xf32>, tensor<128x16xf32>, tensor<128x32xf32>, tensor<128xf32>)
  return %y#0, %y#1, %d#0, %d#1, %d#2, %d#3, %d#4, %d#5 : tensor<?x32xf32>, tensor<?x32xf32>, tensor<?x16xf32>, tensor<?x32xf32>, tensor<?x32xf32>, tensor<128x16xf32>, tensor<128x32xf32>, tensor<128xf32>
}
