// The LSTM cell (PyTorch word_language_model): outputs written with
// --output-dir, read back with numpy and compared with a numpy model of the
// same program (Inputs/lstm.py), and with the reference interpreter.

// REQUIRES: numpy
// RUN: rm -rf %t && mkdir -p %t/in
// RUN: %host_python %S/Inputs/lstm.py make %t/in
// RUN: kiln-run %s --entry lstm_pointwise --input %t/in/gates.npy --input %t/in/c.npy --output-dir %t/pointwise --check-reference | FileCheck %s --check-prefix=REF
// RUN: %host_python %S/Inputs/lstm.py check %t/in lstm_pointwise %t/pointwise | FileCheck %s --check-prefix=NUMPY
// RUN: kiln-run %s --entry lstm_cell --input %t/in/x.npy --input %t/in/h.npy --input %t/in/c.npy --input %t/in/w_ih.npy --input %t/in/w_hh.npy --input %t/in/b_ih.npy --input %t/in/b_hh.npy --output-dir %t/cell --check-reference | FileCheck %s --check-prefix=REF
// RUN: %host_python %S/Inputs/lstm.py check %t/in lstm_cell %t/cell | FileCheck %s --check-prefix=NUMPY
// The output directory is created if missing, and outputs are overwritten.
// RUN: kiln-run %s --entry lstm_pointwise --input %t/in/gates.npy --input %t/in/c.npy --output-dir %t/pointwise
// RUN: %host_python %S/Inputs/lstm.py check %t/in lstm_pointwise %t/pointwise | FileCheck %s --check-prefix=NUMPY

// REF:      reference: out0 tensor<64x256xf32> matches
// REF-NEXT: reference: out1 tensor<64x256xf32> matches
// NUMPY:      numpy: out0 float32 64x256 matches
// NUMPY-NEXT: numpy: out1 float32 64x256 matches

// i, f, g, o = gates.chunk(4, 1)
// c' = sigmoid(f) * c + sigmoid(i) * tanh(g); h' = sigmoid(o) * tanh(c')
func.func @lstm_pointwise(%gates: tensor<64x1024xf32>, %c: tensor<64x256xf32>)
    -> (tensor<64x256xf32>, tensor<64x256xf32>) {
  %i = kiln.slice %gates, offsets = [0, 0], sizes = [64, 256] : tensor<64x1024xf32> -> tensor<64x256xf32>
  %f = kiln.slice %gates, offsets = [0, 256], sizes = [64, 256] : tensor<64x1024xf32> -> tensor<64x256xf32>
  %g = kiln.slice %gates, offsets = [0, 512], sizes = [64, 256] : tensor<64x1024xf32> -> tensor<64x256xf32>
  %o = kiln.slice %gates, offsets = [0, 768], sizes = [64, 256] : tensor<64x1024xf32> -> tensor<64x256xf32>
  %si = kiln.sigmoid %i : tensor<64x256xf32>
  %sf = kiln.sigmoid %f : tensor<64x256xf32>
  %tg = kiln.tanh %g : tensor<64x256xf32>
  %so = kiln.sigmoid %o : tensor<64x256xf32>
  %fc = kiln.mul %sf, %c : tensor<64x256xf32>
  %ig = kiln.mul %si, %tg : tensor<64x256xf32>
  %c2 = kiln.add %fc, %ig : tensor<64x256xf32>
  %tc = kiln.tanh %c2 : tensor<64x256xf32>
  %h2 = kiln.mul %so, %tc : tensor<64x256xf32>
  return %h2, %c2 : tensor<64x256xf32>, tensor<64x256xf32>
}

// The whole cell: gates = x w_ih^T + b_ih + h w_hh^T + b_hh, then the above.
func.func @lstm_cell(%x: tensor<64x48xf32>, %h: tensor<64x256xf32>,
                     %c: tensor<64x256xf32>, %w_ih: tensor<1024x48xf32>,
                     %w_hh: tensor<1024x256xf32>, %b_ih: tensor<1024xf32>,
                     %b_hh: tensor<1024xf32>)
    -> (tensor<64x256xf32>, tensor<64x256xf32>) {
  %xw = kiln.matmul %x, %w_ih {transpose_b = true} : tensor<64x48xf32>, tensor<1024x48xf32> -> tensor<64x1024xf32>
  %hw = kiln.matmul %h, %w_hh {transpose_b = true} : tensor<64x256xf32>, tensor<1024x256xf32> -> tensor<64x1024xf32>
  %bi = kiln.broadcast_in_dim %b_ih, dims = [1] : tensor<1024xf32> -> tensor<64x1024xf32>
  %bh = kiln.broadcast_in_dim %b_hh, dims = [1] : tensor<1024xf32> -> tensor<64x1024xf32>
  %a0 = kiln.add %xw, %bi : tensor<64x1024xf32>
  %a1 = kiln.add %hw, %bh : tensor<64x1024xf32>
  %gates = kiln.add %a0, %a1 : tensor<64x1024xf32>
  %i = kiln.slice %gates, offsets = [0, 0], sizes = [64, 256] : tensor<64x1024xf32> -> tensor<64x256xf32>
  %f = kiln.slice %gates, offsets = [0, 256], sizes = [64, 256] : tensor<64x1024xf32> -> tensor<64x256xf32>
  %g = kiln.slice %gates, offsets = [0, 512], sizes = [64, 256] : tensor<64x1024xf32> -> tensor<64x256xf32>
  %o = kiln.slice %gates, offsets = [0, 768], sizes = [64, 256] : tensor<64x1024xf32> -> tensor<64x256xf32>
  %si = kiln.sigmoid %i : tensor<64x256xf32>
  %sf = kiln.sigmoid %f : tensor<64x256xf32>
  %tg = kiln.tanh %g : tensor<64x256xf32>
  %so = kiln.sigmoid %o : tensor<64x256xf32>
  %fc = kiln.mul %sf, %c : tensor<64x256xf32>
  %ig = kiln.mul %si, %tg : tensor<64x256xf32>
  %c2 = kiln.add %fc, %ig : tensor<64x256xf32>
  %tc = kiln.tanh %c2 : tensor<64x256xf32>
  %h2 = kiln.mul %so, %tc : tensor<64x256xf32>
  return %h2, %c2 : tensor<64x256xf32>, tensor<64x256xf32>
}
