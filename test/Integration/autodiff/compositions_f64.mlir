// Gradients of whole models, in f64, against the reference interpreter's
// central finite differences: a 3-layer tanh MLP (with respect to the input
// only, to the weights only, and to everything), an MLP with a scalar
// mean-squared-error loss, softmax cross-entropy, an LSTM cell (two results,
// two cotangents), a 2-step LSTM through func.call, and a GRU cell.
// Tolerances as in rules_f64.mlir.

// RUN: kiln-run %s --entry mlp_grad_x --random-inputs 501 --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=MLPX
// RUN: kiln-run %s --entry mlp_grad_weights --random-inputs 502 --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=MLPW
// RUN: kiln-run %s --entry mlp_grad_all --random-inputs 503 --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=MLPALL
// RUN: kiln-run %s --entry mlp_loss_grad --random-inputs 504 --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=MLPLOSS
// RUN: kiln-run %s --entry softmax_xent_grad --random-inputs 505 --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=XENT
// RUN: kiln-run %s --entry softmax_grad --random-inputs 506 --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=SOFTMAX
// RUN: kiln-run %s --entry lstm_cell_grad --random-inputs 507 --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=LSTM
// RUN: kiln-run %s --entry lstm_seq_grad --random-inputs 508 --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=LSTMSEQ
// RUN: kiln-run %s --entry gru_cell_grad --random-inputs 509 --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=GRU

//===----------------------------------------------------------------------===//
// MLP: x[4x3] -> 6 -> 5 -> 2, tanh, PyTorch-layout weights (y = x W^T + b)
//===----------------------------------------------------------------------===//

func.func @mlp(%x: tensor<4x3xf64>, %w1: tensor<6x3xf64>, %b1: tensor<6xf64>,
               %w2: tensor<5x6xf64>, %b2: tensor<5xf64>,
               %w3: tensor<2x5xf64>, %b3: tensor<2xf64>) -> tensor<4x2xf64> {
  %m1 = kiln.matmul %x, %w1 {transpose_b = true} : tensor<4x3xf64>, tensor<6x3xf64> -> tensor<4x6xf64>
  %bb1 = kiln.broadcast_in_dim %b1, dims = [1] : tensor<6xf64> -> tensor<4x6xf64>
  %a1 = kiln.add %m1, %bb1 : tensor<4x6xf64>
  %h1 = kiln.tanh %a1 : tensor<4x6xf64>
  %m2 = kiln.matmul %h1, %w2 {transpose_b = true} : tensor<4x6xf64>, tensor<5x6xf64> -> tensor<4x5xf64>
  %bb2 = kiln.broadcast_in_dim %b2, dims = [1] : tensor<5xf64> -> tensor<4x5xf64>
  %a2 = kiln.add %m2, %bb2 : tensor<4x5xf64>
  %h2 = kiln.tanh %a2 : tensor<4x5xf64>
  %m3 = kiln.matmul %h2, %w3 {transpose_b = true} : tensor<4x5xf64>, tensor<2x5xf64> -> tensor<4x2xf64>
  %bb3 = kiln.broadcast_in_dim %b3, dims = [1] : tensor<2xf64> -> tensor<4x2xf64>
  %y = kiln.add %m3, %bb3 : tensor<4x2xf64>
  return %y : tensor<4x2xf64>
}

// MLPX:     reference: out0 tensor<4x3xf64> matches
// MLPX-NOT: matches
func.func @mlp_grad_x(%x: tensor<4x3xf64>, %w1: tensor<6x3xf64>, %b1: tensor<6xf64>,
                      %w2: tensor<5x6xf64>, %b2: tensor<5xf64>,
                      %w3: tensor<2x5xf64>, %b3: tensor<2xf64>,
                      %ct: tensor<4x2xf64>) -> tensor<4x3xf64> {
  %g = kiln.vjp @mlp(%x, %w1, %b1, %w2, %b2, %w3, %b3, %ct) wrt [0]
      : (tensor<4x3xf64>, tensor<6x3xf64>, tensor<6xf64>, tensor<5x6xf64>,
         tensor<5xf64>, tensor<2x5xf64>, tensor<2xf64>, tensor<4x2xf64>)
      -> tensor<4x3xf64>
  return %g : tensor<4x3xf64>
}

// MLPW:      reference: out0 tensor<6x3xf64> matches
// MLPW-NEXT: reference: out1 tensor<6xf64> matches
// MLPW-NEXT: reference: out2 tensor<5x6xf64> matches
// MLPW-NEXT: reference: out3 tensor<5xf64> matches
// MLPW-NEXT: reference: out4 tensor<2x5xf64> matches
// MLPW-NEXT: reference: out5 tensor<2xf64> matches
// MLPW-NOT:  matches
func.func @mlp_grad_weights(%x: tensor<4x3xf64>, %w1: tensor<6x3xf64>, %b1: tensor<6xf64>,
                            %w2: tensor<5x6xf64>, %b2: tensor<5xf64>,
                            %w3: tensor<2x5xf64>, %b3: tensor<2xf64>,
                            %ct: tensor<4x2xf64>)
    -> (tensor<6x3xf64>, tensor<6xf64>, tensor<5x6xf64>, tensor<5xf64>,
        tensor<2x5xf64>, tensor<2xf64>) {
  %g:6 = kiln.vjp @mlp(%x, %w1, %b1, %w2, %b2, %w3, %b3, %ct) wrt [1, 2, 3, 4, 5, 6]
      : (tensor<4x3xf64>, tensor<6x3xf64>, tensor<6xf64>, tensor<5x6xf64>,
         tensor<5xf64>, tensor<2x5xf64>, tensor<2xf64>, tensor<4x2xf64>)
      -> (tensor<6x3xf64>, tensor<6xf64>, tensor<5x6xf64>, tensor<5xf64>,
          tensor<2x5xf64>, tensor<2xf64>)
  return %g#0, %g#1, %g#2, %g#3, %g#4, %g#5
      : tensor<6x3xf64>, tensor<6xf64>, tensor<5x6xf64>, tensor<5xf64>,
        tensor<2x5xf64>, tensor<2xf64>
}

// MLPALL:      reference: out0 tensor<4x3xf64> matches
// MLPALL-NEXT: reference: out1 tensor<6x3xf64> matches
// MLPALL-NEXT: reference: out2 tensor<6xf64> matches
// MLPALL-NEXT: reference: out3 tensor<5x6xf64> matches
// MLPALL-NEXT: reference: out4 tensor<5xf64> matches
// MLPALL-NEXT: reference: out5 tensor<2x5xf64> matches
// MLPALL-NEXT: reference: out6 tensor<2xf64> matches
// MLPALL-NOT:  matches
func.func @mlp_grad_all(%x: tensor<4x3xf64>, %w1: tensor<6x3xf64>, %b1: tensor<6xf64>,
                        %w2: tensor<5x6xf64>, %b2: tensor<5xf64>,
                        %w3: tensor<2x5xf64>, %b3: tensor<2xf64>,
                        %ct: tensor<4x2xf64>)
    -> (tensor<4x3xf64>, tensor<6x3xf64>, tensor<6xf64>, tensor<5x6xf64>,
        tensor<5xf64>, tensor<2x5xf64>, tensor<2xf64>) {
  %g:7 = kiln.vjp @mlp(%x, %w1, %b1, %w2, %b2, %w3, %b3, %ct) wrt [0, 1, 2, 3, 4, 5, 6]
      : (tensor<4x3xf64>, tensor<6x3xf64>, tensor<6xf64>, tensor<5x6xf64>,
         tensor<5xf64>, tensor<2x5xf64>, tensor<2xf64>, tensor<4x2xf64>)
      -> (tensor<4x3xf64>, tensor<6x3xf64>, tensor<6xf64>, tensor<5x6xf64>,
          tensor<5xf64>, tensor<2x5xf64>, tensor<2xf64>)
  return %g#0, %g#1, %g#2, %g#3, %g#4, %g#5, %g#6
      : tensor<4x3xf64>, tensor<6x3xf64>, tensor<6xf64>, tensor<5x6xf64>,
        tensor<5xf64>, tensor<2x5xf64>, tensor<2xf64>
}

// A scalar loss: mean((mlp(x) - target)^2), the MLP reached through
// func.call; gradients of the weights of the first and last layers.
// MLPLOSS:      reference: out0 tensor<6x3xf64> matches
// MLPLOSS-NEXT: reference: out1 tensor<6xf64> matches
// MLPLOSS-NEXT: reference: out2 tensor<2x5xf64> matches
// MLPLOSS-NEXT: reference: out3 tensor<2xf64> matches
// MLPLOSS-NEXT: reference: out4 tensor<4x2xf64> matches
// MLPLOSS-NOT:  matches
func.func @mlp_loss(%x: tensor<4x3xf64>, %w1: tensor<6x3xf64>, %b1: tensor<6xf64>,
                    %w2: tensor<5x6xf64>, %b2: tensor<5xf64>,
                    %w3: tensor<2x5xf64>, %b3: tensor<2xf64>,
                    %target: tensor<4x2xf64>) -> tensor<f64> {
  %y = func.call @mlp(%x, %w1, %b1, %w2, %b2, %w3, %b3)
      : (tensor<4x3xf64>, tensor<6x3xf64>, tensor<6xf64>, tensor<5x6xf64>,
         tensor<5xf64>, tensor<2x5xf64>, tensor<2xf64>) -> tensor<4x2xf64>
  %d = kiln.sub %y, %target : tensor<4x2xf64>
  %sq = kiln.mul %d, %d : tensor<4x2xf64>
  %s = kiln.reduce_sum %sq, dims = [0, 1] : tensor<4x2xf64> -> tensor<f64>
  %n = kiln.constant dense<8.0> : tensor<f64>
  %l = kiln.div %s, %n : tensor<f64>
  return %l : tensor<f64>
}
func.func @mlp_loss_grad(%x: tensor<4x3xf64>, %w1: tensor<6x3xf64>, %b1: tensor<6xf64>,
                         %w2: tensor<5x6xf64>, %b2: tensor<5xf64>,
                         %w3: tensor<2x5xf64>, %b3: tensor<2xf64>,
                         %target: tensor<4x2xf64>, %ct: tensor<f64>)
    -> (tensor<6x3xf64>, tensor<6xf64>, tensor<2x5xf64>, tensor<2xf64>,
        tensor<4x2xf64>) {
  %g:5 = kiln.vjp @mlp_loss(%x, %w1, %b1, %w2, %b2, %w3, %b3, %target, %ct) wrt [1, 2, 5, 6, 7]
      : (tensor<4x3xf64>, tensor<6x3xf64>, tensor<6xf64>, tensor<5x6xf64>,
         tensor<5xf64>, tensor<2x5xf64>, tensor<2xf64>, tensor<4x2xf64>,
         tensor<f64>)
      -> (tensor<6x3xf64>, tensor<6xf64>, tensor<2x5xf64>, tensor<2xf64>,
          tensor<4x2xf64>)
  return %g#0, %g#1, %g#2, %g#3, %g#4
      : tensor<6x3xf64>, tensor<6xf64>, tensor<2x5xf64>, tensor<2xf64>,
        tensor<4x2xf64>
}

//===----------------------------------------------------------------------===//
// Softmax and cross-entropy over the rows of z[4x5]
//===----------------------------------------------------------------------===//

// softmax(z) with the max subtracted first (the max's own gradient cancels
// out: softmax is shift-invariant).
func.func @softmax(%z: tensor<4x5xf64>) -> tensor<4x5xf64> {
  %m = kiln.reduce_max %z, dims = [1] : tensor<4x5xf64> -> tensor<4xf64>
  %mb = kiln.broadcast_in_dim %m, dims = [0] : tensor<4xf64> -> tensor<4x5xf64>
  %s = kiln.sub %z, %mb : tensor<4x5xf64>
  %e = kiln.exp %s : tensor<4x5xf64>
  %sum = kiln.reduce_sum %e, dims = [1] : tensor<4x5xf64> -> tensor<4xf64>
  %sb = kiln.broadcast_in_dim %sum, dims = [0] : tensor<4xf64> -> tensor<4x5xf64>
  %p = kiln.div %e, %sb : tensor<4x5xf64>
  return %p : tensor<4x5xf64>
}

// -sum(t * log(softmax(x W^T + b))) / 4 with soft targets t, as a
// log(softmax) (not a fused log-softmax).
func.func @softmax_xent(%x: tensor<4x3xf64>, %w: tensor<5x3xf64>, %b: tensor<5xf64>,
                        %t: tensor<4x5xf64>) -> tensor<f64> {
  %m = kiln.matmul %x, %w {transpose_b = true} : tensor<4x3xf64>, tensor<5x3xf64> -> tensor<4x5xf64>
  %bb = kiln.broadcast_in_dim %b, dims = [1] : tensor<5xf64> -> tensor<4x5xf64>
  %z = kiln.add %m, %bb : tensor<4x5xf64>
  %p = func.call @softmax(%z) : (tensor<4x5xf64>) -> tensor<4x5xf64>
  %lp = kiln.log %p : tensor<4x5xf64>
  %tl = kiln.mul %t, %lp : tensor<4x5xf64>
  %s = kiln.reduce_sum %tl, dims = [0, 1] : tensor<4x5xf64> -> tensor<f64>
  %n = kiln.constant dense<-4.0> : tensor<f64>
  %l = kiln.div %s, %n : tensor<f64>
  return %l : tensor<f64>
}

// XENT:      reference: out0 tensor<4x3xf64> matches
// XENT-NEXT: reference: out1 tensor<5x3xf64> matches
// XENT-NEXT: reference: out2 tensor<5xf64> matches
// XENT-NEXT: reference: out3 tensor<4x5xf64> matches
// XENT-NOT:  matches
func.func @softmax_xent_grad(%x: tensor<4x3xf64>, %w: tensor<5x3xf64>, %b: tensor<5xf64>,
                             %t: tensor<4x5xf64>, %ct: tensor<f64>)
    -> (tensor<4x3xf64>, tensor<5x3xf64>, tensor<5xf64>, tensor<4x5xf64>) {
  %g:4 = kiln.vjp @softmax_xent(%x, %w, %b, %t, %ct) wrt [0, 1, 2, 3]
      : (tensor<4x3xf64>, tensor<5x3xf64>, tensor<5xf64>, tensor<4x5xf64>, tensor<f64>)
      -> (tensor<4x3xf64>, tensor<5x3xf64>, tensor<5xf64>, tensor<4x5xf64>)
  return %g#0, %g#1, %g#2, %g#3
      : tensor<4x3xf64>, tensor<5x3xf64>, tensor<5xf64>, tensor<4x5xf64>
}

// The softmax itself, with a full cotangent.
// SOFTMAX:     reference: out0 tensor<4x5xf64> matches
// SOFTMAX-NOT: matches
func.func @softmax_grad(%z: tensor<4x5xf64>, %ct: tensor<4x5xf64>) -> tensor<4x5xf64> {
  %g = kiln.vjp @softmax(%z, %ct) wrt [0] : (tensor<4x5xf64>, tensor<4x5xf64>) -> tensor<4x5xf64>
  return %g : tensor<4x5xf64>
}

//===----------------------------------------------------------------------===//
// LSTM cell: batch 2, input 3, hidden 4
//===----------------------------------------------------------------------===//

// gates = x Wx^T + h Wh^T + b; i, f, g, o = gates.chunk(4, 1);
// c' = sigmoid(f) c + sigmoid(i) tanh(g); h' = sigmoid(o) tanh(c').
func.func @lstm_cell(%x: tensor<2x3xf64>, %h: tensor<2x4xf64>, %c: tensor<2x4xf64>,
                     %wx: tensor<16x3xf64>, %wh: tensor<16x4xf64>, %b: tensor<16xf64>)
    -> (tensor<2x4xf64>, tensor<2x4xf64>) {
  %xw = kiln.matmul %x, %wx {transpose_b = true} : tensor<2x3xf64>, tensor<16x3xf64> -> tensor<2x16xf64>
  %hw = kiln.matmul %h, %wh {transpose_b = true} : tensor<2x4xf64>, tensor<16x4xf64> -> tensor<2x16xf64>
  %bb = kiln.broadcast_in_dim %b, dims = [1] : tensor<16xf64> -> tensor<2x16xf64>
  %s = kiln.add %xw, %hw : tensor<2x16xf64>
  %gates = kiln.add %s, %bb : tensor<2x16xf64>
  %i = kiln.slice %gates, offsets = [0, 0], sizes = [2, 4] : tensor<2x16xf64> -> tensor<2x4xf64>
  %f = kiln.slice %gates, offsets = [0, 4], sizes = [2, 4] : tensor<2x16xf64> -> tensor<2x4xf64>
  %g = kiln.slice %gates, offsets = [0, 8], sizes = [2, 4] : tensor<2x16xf64> -> tensor<2x4xf64>
  %o = kiln.slice %gates, offsets = [0, 12], sizes = [2, 4] : tensor<2x16xf64> -> tensor<2x4xf64>
  %si = kiln.sigmoid %i : tensor<2x4xf64>
  %sf = kiln.sigmoid %f : tensor<2x4xf64>
  %tg = kiln.tanh %g : tensor<2x4xf64>
  %so = kiln.sigmoid %o : tensor<2x4xf64>
  %fc = kiln.mul %sf, %c : tensor<2x4xf64>
  %ig = kiln.mul %si, %tg : tensor<2x4xf64>
  %c2 = kiln.add %fc, %ig : tensor<2x4xf64>
  %tc = kiln.tanh %c2 : tensor<2x4xf64>
  %h2 = kiln.mul %so, %tc : tensor<2x4xf64>
  return %h2, %c2 : tensor<2x4xf64>, tensor<2x4xf64>
}

// LSTM:      reference: out0 tensor<2x3xf64> matches
// LSTM-NEXT: reference: out1 tensor<2x4xf64> matches
// LSTM-NEXT: reference: out2 tensor<2x4xf64> matches
// LSTM-NEXT: reference: out3 tensor<16x3xf64> matches
// LSTM-NEXT: reference: out4 tensor<16x4xf64> matches
// LSTM-NEXT: reference: out5 tensor<16xf64> matches
// LSTM-NOT:  matches
func.func @lstm_cell_grad(%x: tensor<2x3xf64>, %h: tensor<2x4xf64>, %c: tensor<2x4xf64>,
                          %wx: tensor<16x3xf64>, %wh: tensor<16x4xf64>, %b: tensor<16xf64>,
                          %ct_h: tensor<2x4xf64>, %ct_c: tensor<2x4xf64>)
    -> (tensor<2x3xf64>, tensor<2x4xf64>, tensor<2x4xf64>, tensor<16x3xf64>,
        tensor<16x4xf64>, tensor<16xf64>) {
  %g:6 = kiln.vjp @lstm_cell(%x, %h, %c, %wx, %wh, %b, %ct_h, %ct_c) wrt [0, 1, 2, 3, 4, 5]
      : (tensor<2x3xf64>, tensor<2x4xf64>, tensor<2x4xf64>, tensor<16x3xf64>,
         tensor<16x4xf64>, tensor<16xf64>, tensor<2x4xf64>, tensor<2x4xf64>)
      -> (tensor<2x3xf64>, tensor<2x4xf64>, tensor<2x4xf64>, tensor<16x3xf64>,
          tensor<16x4xf64>, tensor<16xf64>)
  return %g#0, %g#1, %g#2, %g#3, %g#4, %g#5
      : tensor<2x3xf64>, tensor<2x4xf64>, tensor<2x4xf64>, tensor<16x3xf64>,
        tensor<16x4xf64>, tensor<16xf64>
}

// Two steps sharing the weights, each step a func.call of @lstm_cell: the
// weight gradients accumulate over both steps; the loss is sum(h2 * h2).
func.func @lstm_seq(%x0: tensor<2x3xf64>, %x1: tensor<2x3xf64>, %h: tensor<2x4xf64>,
                    %c: tensor<2x4xf64>, %wx: tensor<16x3xf64>, %wh: tensor<16x4xf64>,
                    %b: tensor<16xf64>) -> tensor<f64> {
  %h1, %c1 = func.call @lstm_cell(%x0, %h, %c, %wx, %wh, %b)
      : (tensor<2x3xf64>, tensor<2x4xf64>, tensor<2x4xf64>, tensor<16x3xf64>,
         tensor<16x4xf64>, tensor<16xf64>) -> (tensor<2x4xf64>, tensor<2x4xf64>)
  %h2, %c2 = func.call @lstm_cell(%x1, %h1, %c1, %wx, %wh, %b)
      : (tensor<2x3xf64>, tensor<2x4xf64>, tensor<2x4xf64>, tensor<16x3xf64>,
         tensor<16x4xf64>, tensor<16xf64>) -> (tensor<2x4xf64>, tensor<2x4xf64>)
  %sq = kiln.mul %h2, %h2 : tensor<2x4xf64>
  %l = kiln.reduce_sum %sq, dims = [0, 1] : tensor<2x4xf64> -> tensor<f64>
  return %l : tensor<f64>
}

// LSTMSEQ:      reference: out0 tensor<2x3xf64> matches
// LSTMSEQ-NEXT: reference: out1 tensor<2x3xf64> matches
// LSTMSEQ-NEXT: reference: out2 tensor<2x4xf64> matches
// LSTMSEQ-NEXT: reference: out3 tensor<2x4xf64> matches
// LSTMSEQ-NEXT: reference: out4 tensor<16x3xf64> matches
// LSTMSEQ-NEXT: reference: out5 tensor<16x4xf64> matches
// LSTMSEQ-NEXT: reference: out6 tensor<16xf64> matches
// LSTMSEQ-NOT:  matches
func.func @lstm_seq_grad(%x0: tensor<2x3xf64>, %x1: tensor<2x3xf64>, %h: tensor<2x4xf64>,
                         %c: tensor<2x4xf64>, %wx: tensor<16x3xf64>, %wh: tensor<16x4xf64>,
                         %b: tensor<16xf64>, %ct: tensor<f64>)
    -> (tensor<2x3xf64>, tensor<2x3xf64>, tensor<2x4xf64>, tensor<2x4xf64>,
        tensor<16x3xf64>, tensor<16x4xf64>, tensor<16xf64>) {
  %g:7 = kiln.vjp @lstm_seq(%x0, %x1, %h, %c, %wx, %wh, %b, %ct) wrt [0, 1, 2, 3, 4, 5, 6]
      : (tensor<2x3xf64>, tensor<2x3xf64>, tensor<2x4xf64>, tensor<2x4xf64>,
         tensor<16x3xf64>, tensor<16x4xf64>, tensor<16xf64>, tensor<f64>)
      -> (tensor<2x3xf64>, tensor<2x3xf64>, tensor<2x4xf64>, tensor<2x4xf64>,
          tensor<16x3xf64>, tensor<16x4xf64>, tensor<16xf64>)
  return %g#0, %g#1, %g#2, %g#3, %g#4, %g#5, %g#6
      : tensor<2x3xf64>, tensor<2x3xf64>, tensor<2x4xf64>, tensor<2x4xf64>,
        tensor<16x3xf64>, tensor<16x4xf64>, tensor<16xf64>
}

//===----------------------------------------------------------------------===//
// GRU cell (PyTorch): batch 2, input 3, hidden 4
//===----------------------------------------------------------------------===//

// gi = x W_ih^T + b_ih, gh = h W_hh^T + b_hh, each chunked into r, z, n;
// r = sigmoid(gi_r + gh_r), z = sigmoid(gi_z + gh_z),
// n = tanh(gi_n + r * gh_n), h' = (1 - z) * n + z * h.
func.func @gru_cell(%x: tensor<2x3xf64>, %h: tensor<2x4xf64>,
                    %w_ih: tensor<12x3xf64>, %w_hh: tensor<12x4xf64>,
                    %b_ih: tensor<12xf64>, %b_hh: tensor<12xf64>) -> tensor<2x4xf64> {
  %xw = kiln.matmul %x, %w_ih {transpose_b = true} : tensor<2x3xf64>, tensor<12x3xf64> -> tensor<2x12xf64>
  %hw = kiln.matmul %h, %w_hh {transpose_b = true} : tensor<2x4xf64>, tensor<12x4xf64> -> tensor<2x12xf64>
  %bi = kiln.broadcast_in_dim %b_ih, dims = [1] : tensor<12xf64> -> tensor<2x12xf64>
  %bh = kiln.broadcast_in_dim %b_hh, dims = [1] : tensor<12xf64> -> tensor<2x12xf64>
  %gi = kiln.add %xw, %bi : tensor<2x12xf64>
  %gh = kiln.add %hw, %bh : tensor<2x12xf64>
  %i_r = kiln.slice %gi, offsets = [0, 0], sizes = [2, 4] : tensor<2x12xf64> -> tensor<2x4xf64>
  %i_z = kiln.slice %gi, offsets = [0, 4], sizes = [2, 4] : tensor<2x12xf64> -> tensor<2x4xf64>
  %i_n = kiln.slice %gi, offsets = [0, 8], sizes = [2, 4] : tensor<2x12xf64> -> tensor<2x4xf64>
  %h_r = kiln.slice %gh, offsets = [0, 0], sizes = [2, 4] : tensor<2x12xf64> -> tensor<2x4xf64>
  %h_z = kiln.slice %gh, offsets = [0, 4], sizes = [2, 4] : tensor<2x12xf64> -> tensor<2x4xf64>
  %h_n = kiln.slice %gh, offsets = [0, 8], sizes = [2, 4] : tensor<2x12xf64> -> tensor<2x4xf64>
  %ar = kiln.add %i_r, %h_r : tensor<2x4xf64>
  %r = kiln.sigmoid %ar : tensor<2x4xf64>
  %az = kiln.add %i_z, %h_z : tensor<2x4xf64>
  %z = kiln.sigmoid %az : tensor<2x4xf64>
  %rh = kiln.mul %r, %h_n : tensor<2x4xf64>
  %an = kiln.add %i_n, %rh : tensor<2x4xf64>
  %n = kiln.tanh %an : tensor<2x4xf64>
  %one = kiln.constant dense<1.0> : tensor<2x4xf64>
  %omz = kiln.sub %one, %z : tensor<2x4xf64>
  %a = kiln.mul %omz, %n : tensor<2x4xf64>
  %zh = kiln.mul %z, %h : tensor<2x4xf64>
  %h2 = kiln.add %a, %zh : tensor<2x4xf64>
  return %h2 : tensor<2x4xf64>
}

// GRU:      reference: out0 tensor<2x3xf64> matches
// GRU-NEXT: reference: out1 tensor<2x4xf64> matches
// GRU-NEXT: reference: out2 tensor<12x3xf64> matches
// GRU-NEXT: reference: out3 tensor<12x4xf64> matches
// GRU-NEXT: reference: out4 tensor<12xf64> matches
// GRU-NEXT: reference: out5 tensor<12xf64> matches
// GRU-NOT:  matches
func.func @gru_cell_grad(%x: tensor<2x3xf64>, %h: tensor<2x4xf64>,
                         %w_ih: tensor<12x3xf64>, %w_hh: tensor<12x4xf64>,
                         %b_ih: tensor<12xf64>, %b_hh: tensor<12xf64>,
                         %ct: tensor<2x4xf64>)
    -> (tensor<2x3xf64>, tensor<2x4xf64>, tensor<12x3xf64>, tensor<12x4xf64>,
        tensor<12xf64>, tensor<12xf64>) {
  %g:6 = kiln.vjp @gru_cell(%x, %h, %w_ih, %w_hh, %b_ih, %b_hh, %ct) wrt [0, 1, 2, 3, 4, 5]
      : (tensor<2x3xf64>, tensor<2x4xf64>, tensor<12x3xf64>, tensor<12x4xf64>,
         tensor<12xf64>, tensor<12xf64>, tensor<2x4xf64>)
      -> (tensor<2x3xf64>, tensor<2x4xf64>, tensor<12x3xf64>, tensor<12x4xf64>,
          tensor<12xf64>, tensor<12xf64>)
  return %g#0, %g#1, %g#2, %g#3, %g#4, %g#5
      : tensor<2x3xf64>, tensor<2x4xf64>, tensor<12x3xf64>, tensor<12x4xf64>,
        tensor<12xf64>, tensor<12xf64>
}
