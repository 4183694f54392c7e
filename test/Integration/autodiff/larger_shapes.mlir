// Gradients on larger, odd shapes, so that the compiled backward kernels
// (vectorized loops with remainders, reductions, BLAS matmuls, fused
// groups with several outputs) run with more than a handful of elements.
// The finite differences cost two callee evaluations per element of each
// wrt argument, so the wrt arguments are the smaller ones. With larger
// sums the finite-difference noise grows to ~1e-9, hence --rtol 1e-6
// --atol 1e-8 in f64; f32 uses the default tolerances.

// RUN: kiln-run %s --entry mlp_grad --random-inputs 1001 --check-reference --rtol 1e-6 --atol 1e-8 | FileCheck %s --check-prefix=MLP
// RUN: kiln-run %s --entry softmax_grad --random-inputs 1002 --check-reference --rtol 1e-6 --atol 1e-8 | FileCheck %s --check-prefix=SOFTMAX
// RUN: kiln-run %s --entry rownorm_grad --random-inputs 1003 --check-reference --rtol 1e-6 --atol 1e-8 | FileCheck %s --check-prefix=ROWNORM
// RUN: kiln-run %s --entry lstm_grad --random-inputs 1004 --check-reference --rtol 1e-6 --atol 1e-8 | FileCheck %s --check-prefix=LSTM
// RUN: kiln-run %s --entry bias_f32_grad --random-inputs 1005 --check-reference | FileCheck %s --check-prefix=BIAS32

// A tanh MLP, 33 x 17 -> 65 -> 3: gradients of the first bias and the
// second layer.
// MLP:      reference: out0 tensor<65xf64> matches
// MLP-NEXT: reference: out1 tensor<3x65xf64> matches
// MLP-NEXT: reference: out2 tensor<3xf64> matches
// MLP-NOT:  matches
func.func @mlp(%x: tensor<33x17xf64>, %w1: tensor<65x17xf64>, %b1: tensor<65xf64>, %w2: tensor<3x65xf64>, %b2: tensor<3xf64>) -> tensor<33x3xf64> {
  %m1 = kiln.matmul %x, %w1 {transpose_b = true} : tensor<33x17xf64>, tensor<65x17xf64> -> tensor<33x65xf64>
  %bb1 = kiln.broadcast_in_dim %b1, dims = [1] : tensor<65xf64> -> tensor<33x65xf64>
  %a1 = kiln.add %m1, %bb1 : tensor<33x65xf64>
  %h1 = kiln.tanh %a1 : tensor<33x65xf64>
  %m2 = kiln.matmul %h1, %w2 {transpose_b = true} : tensor<33x65xf64>, tensor<3x65xf64> -> tensor<33x3xf64>
  %bb2 = kiln.broadcast_in_dim %b2, dims = [1] : tensor<3xf64> -> tensor<33x3xf64>
  %y = kiln.add %m2, %bb2 : tensor<33x3xf64>
  return %y : tensor<33x3xf64>
}
func.func @mlp_grad(%x: tensor<33x17xf64>, %w1: tensor<65x17xf64>, %b1: tensor<65xf64>, %w2: tensor<3x65xf64>, %b2: tensor<3xf64>, %ct: tensor<33x3xf64>) -> (tensor<65xf64>, tensor<3x65xf64>, tensor<3xf64>) {
  %g:3 = kiln.vjp @mlp(%x, %w1, %b1, %w2, %b2, %ct) wrt [2, 3, 4] : (tensor<33x17xf64>, tensor<65x17xf64>, tensor<65xf64>, tensor<3x65xf64>, tensor<3xf64>, tensor<33x3xf64>) -> (tensor<65xf64>, tensor<3x65xf64>, tensor<3xf64>)
  return %g#0, %g#1, %g#2 : tensor<65xf64>, tensor<3x65xf64>, tensor<3xf64>
}

// A row softmax, 16 x 130, full cotangent.
// SOFTMAX:     reference: out0 tensor<16x130xf64> matches
// SOFTMAX-NOT: matches
func.func @softmax(%z: tensor<16x130xf64>) -> tensor<16x130xf64> {
  %m = kiln.reduce_max %z, dims = [1] : tensor<16x130xf64> -> tensor<16xf64>
  %mb = kiln.broadcast_in_dim %m, dims = [0] : tensor<16xf64> -> tensor<16x130xf64>
  %s = kiln.sub %z, %mb : tensor<16x130xf64>
  %e = kiln.exp %s : tensor<16x130xf64>
  %sum = kiln.reduce_sum %e, dims = [1] : tensor<16x130xf64> -> tensor<16xf64>
  %sb = kiln.broadcast_in_dim %sum, dims = [0] : tensor<16xf64> -> tensor<16x130xf64>
  %p = kiln.div %e, %sb : tensor<16x130xf64>
  return %p : tensor<16x130xf64>
}
func.func @softmax_grad(%z: tensor<16x130xf64>, %ct: tensor<16x130xf64>) -> tensor<16x130xf64> {
  %g = kiln.vjp @softmax(%z, %ct) wrt [0] : (tensor<16x130xf64>, tensor<16x130xf64>) -> tensor<16x130xf64>
  return %g : tensor<16x130xf64>
}

// Row normalization with an rsqrt of the mean square (RMSNorm) and a gain,
// 37 x 129: gradients w.r.t. x and the gain.
// ROWNORM:      reference: out0 tensor<37x129xf64> matches
// ROWNORM-NEXT: reference: out1 tensor<129xf64> matches
// ROWNORM-NOT:  matches
func.func @rownorm(%x: tensor<37x129xf64>, %gain: tensor<129xf64>) -> tensor<37x129xf64> {
  %sq = kiln.mul %x, %x : tensor<37x129xf64>
  %ss = kiln.reduce_sum %sq, dims = [1] : tensor<37x129xf64> -> tensor<37xf64>
  %n = kiln.constant dense<129.0> : tensor<37xf64>
  %eps = kiln.constant dense<1.0e-3> : tensor<37xf64>
  %ms = kiln.div %ss, %n : tensor<37xf64>
  %mse = kiln.add %ms, %eps : tensor<37xf64>
  %r = kiln.rsqrt %mse : tensor<37xf64>
  %rb = kiln.broadcast_in_dim %r, dims = [0] : tensor<37xf64> -> tensor<37x129xf64>
  %gb = kiln.broadcast_in_dim %gain, dims = [1] : tensor<129xf64> -> tensor<37x129xf64>
  %y = kiln.mul %x, %rb : tensor<37x129xf64>
  %z = kiln.mul %y, %gb : tensor<37x129xf64>
  return %z : tensor<37x129xf64>
}
func.func @rownorm_grad(%x: tensor<37x129xf64>, %gain: tensor<129xf64>, %ct: tensor<37x129xf64>)
    -> (tensor<37x129xf64>, tensor<129xf64>) {
  %g:2 = kiln.vjp @rownorm(%x, %gain, %ct) wrt [0, 1] : (tensor<37x129xf64>, tensor<129xf64>, tensor<37x129xf64>) -> (tensor<37x129xf64>, tensor<129xf64>)
  return %g#0, %g#1 : tensor<37x129xf64>, tensor<129xf64>
}

// An LSTM cell with batch 4, input 16, hidden 32; gradients w.r.t. c, the
// bias and h.
// LSTM:      reference: out0 tensor<4x32xf64> matches
// LSTM-NEXT: reference: out1 tensor<4x32xf64> matches
// LSTM-NEXT: reference: out2 tensor<128xf64> matches
// LSTM-NOT:  matches
func.func @lstm_cell(%x: tensor<4x16xf64>, %h: tensor<4x32xf64>, %c: tensor<4x32xf64>,
                     %wx: tensor<128x16xf64>, %wh: tensor<128x32xf64>, %b: tensor<128xf64>)
    -> (tensor<4x32xf64>, tensor<4x32xf64>) {
  %xw = kiln.matmul %x, %wx {transpose_b = true} : tensor<4x16xf64>, tensor<128x16xf64> -> tensor<4x128xf64>
  %hw = kiln.matmul %h, %wh {transpose_b = true} : tensor<4x32xf64>, tensor<128x32xf64> -> tensor<4x128xf64>
  %bb = kiln.broadcast_in_dim %b, dims = [1] : tensor<128xf64> -> tensor<4x128xf64>
  %s = kiln.add %xw, %hw : tensor<4x128xf64>
  %gates = kiln.add %s, %bb : tensor<4x128xf64>
  %i = kiln.slice %gates, offsets = [0, 0], sizes = [4, 32] : tensor<4x128xf64> -> tensor<4x32xf64>
  %f = kiln.slice %gates, offsets = [0, 32], sizes = [4, 32] : tensor<4x128xf64> -> tensor<4x32xf64>
  %g = kiln.slice %gates, offsets = [0, 64], sizes = [4, 32] : tensor<4x128xf64> -> tensor<4x32xf64>
  %o = kiln.slice %gates, offsets = [0, 96], sizes = [4, 32] : tensor<4x128xf64> -> tensor<4x32xf64>
  %si = kiln.sigmoid %i : tensor<4x32xf64>
  %sf = kiln.sigmoid %f : tensor<4x32xf64>
  %tg = kiln.tanh %g : tensor<4x32xf64>
  %so = kiln.sigmoid %o : tensor<4x32xf64>
  %fc = kiln.mul %sf, %c : tensor<4x32xf64>
  %ig = kiln.mul %si, %tg : tensor<4x32xf64>
  %c2 = kiln.add %fc, %ig : tensor<4x32xf64>
  %tc = kiln.tanh %c2 : tensor<4x32xf64>
  %h2 = kiln.mul %so, %tc : tensor<4x32xf64>
  return %h2, %c2 : tensor<4x32xf64>, tensor<4x32xf64>
}
func.func @lstm_grad(%x: tensor<4x16xf64>, %h: tensor<4x32xf64>, %c: tensor<4x32xf64>,
                     %wx: tensor<128x16xf64>, %wh: tensor<128x32xf64>, %b: tensor<128xf64>,
                     %ct_h: tensor<4x32xf64>, %ct_c: tensor<4x32xf64>)
    -> (tensor<4x32xf64>, tensor<4x32xf64>, tensor<128xf64>) {
  %g:3 = kiln.vjp @lstm_cell(%x, %h, %c, %wx, %wh, %b, %ct_h, %ct_c) wrt [1, 2, 5]
      : (tensor<4x16xf64>, tensor<4x32xf64>, tensor<4x32xf64>, tensor<128x16xf64>,
         tensor<128x32xf64>, tensor<128xf64>, tensor<4x32xf64>, tensor<4x32xf64>)
      -> (tensor<4x32xf64>, tensor<4x32xf64>, tensor<128xf64>)
  return %g#0, %g#1, %g#2 : tensor<4x32xf64>, tensor<4x32xf64>, tensor<128xf64>
}

// f32, 64 x 257: a bias along the rows and a scale along the columns.
// BIAS32:      reference: out0 tensor<257xf32> matches
// BIAS32-NEXT: reference: out1 tensor<64xf32> matches
// BIAS32-NOT:  matches
func.func @bias_f32(%x: tensor<64x257xf32>, %b: tensor<257xf32>, %r: tensor<64xf32>) -> tensor<64x257xf32> {
  %bb = kiln.broadcast_in_dim %b, dims = [1] : tensor<257xf32> -> tensor<64x257xf32>
  %rb = kiln.broadcast_in_dim %r, dims = [0] : tensor<64xf32> -> tensor<64x257xf32>
  %a = kiln.add %x, %bb : tensor<64x257xf32>
  %m = kiln.mul %a, %rb : tensor<64x257xf32>
  %t = kiln.sigmoid %m : tensor<64x257xf32>
  return %t : tensor<64x257xf32>
}
func.func @bias_f32_grad(%x: tensor<64x257xf32>, %b: tensor<257xf32>, %r: tensor<64xf32>, %ct: tensor<64x257xf32>) -> (tensor<257xf32>, tensor<64xf32>) {
  %g:2 = kiln.vjp @bias_f32(%x, %b, %r, %ct) wrt [1, 2] : (tensor<64x257xf32>, tensor<257xf32>, tensor<64xf32>, tensor<64x257xf32>) -> (tensor<257xf32>, tensor<64xf32>)
  return %g#0, %g#1 : tensor<257xf32>, tensor<64xf32>
}
