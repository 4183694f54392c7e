// Gradients of gradients, in f64: a kiln.vjp whose callee itself holds a
// kiln.vjp. -kiln-autodiff expands the inner one first and then
// differentiates its derivative ops; the reference interpreter evaluates
// both by central finite differences. Finite differences of finite
// differences carry noise of about 1e-10 / 2e-5, i.e. 1e-6 to 1e-5 absolute
// (measured over many seeds), so the second-order checks use
// --rtol 1e-4 --atol 2e-5; a wrong second derivative is off by O(0.1).

// Hessian-vector products of f(x, W) = sum(tanh(x W)^2): H v (w.r.t. x),
// and also w.r.t. W and the first-order cotangent (mixed derivatives).
// RUN: kiln-run %s --entry hvp --random-inputs 601 --check-reference --rtol 1e-4 --atol 2e-5 | FileCheck %s --check-prefix=HVP
// RUN: kiln-run %s --entry hvp_mixed --random-inputs 602 --check-reference --rtol 1e-4 --atol 2e-5 | FileCheck %s --check-prefix=HVPMIXED
// RUN: kiln-run %s --entry hvp_full --random-inputs 608 --check-reference --rtol 1e-4 --atol 2e-5 | FileCheck %s --check-prefix=HVPFULL
// Second order through an LSTM cell (slices, sigmoid, tanh, two results).
// RUN: kiln-run %s --entry lstm_second --random-inputs 609 --check-reference --rtol 1e-4 --atol 2e-5 | FileCheck %s --check-prefix=LSTM2
// The Hessian benchmark in miniature (tanh MLP, second derivative w.r.t. x).
// RUN: kiln-run %s --entry mlp_hessian --random-inputs 603 --check-reference --rtol 1e-4 --atol 2e-5 | FileCheck %s --check-prefix=MLPH
// RUN: kiln-run %s --entry mlp3_hessian --random-inputs 604 --check-reference --rtol 1e-4 --atol 2e-5 | FileCheck %s --check-prefix=MLP3H
// RUN: kiln-run %s --entry mlp_bias_hessian --random-inputs 605 --check-reference --rtol 1e-4 --atol 2e-5 | FileCheck %s --check-prefix=MLPBH
// With ReLU the second derivative w.r.t. x is exactly zero (printed); the
// mixed derivative w.r.t. w1 is not.
// RUN: kiln-run %s --entry relu_hessian --random-inputs 606 --print --check-reference --rtol 1e-4 --atol 2e-5 | FileCheck %s --check-prefix=RELUH
// RUN: kiln-run %s --entry relu_hessian_mixed --random-inputs 607 --print --check-reference --rtol 1e-4 --atol 2e-5 | FileCheck %s --check-prefix=RELUMIXED
// Third order is checked exactly in closed_forms.mlir: finite differences
// nested three deep are too noisy (errors of a few percent) to compare with.

//===----------------------------------------------------------------------===//
// Hessian-vector product of a scalar function
//===----------------------------------------------------------------------===//

func.func @f(%x: tensor<3x4xf64>, %w: tensor<4x5xf64>) -> tensor<f64> {
  %m = kiln.matmul %x, %w : tensor<3x4xf64>, tensor<4x5xf64> -> tensor<3x5xf64>
  %t = kiln.tanh %m : tensor<3x5xf64>
  %sq = kiln.mul %t, %t : tensor<3x5xf64>
  %s = kiln.reduce_sum %sq, dims = [0, 1] : tensor<3x5xf64> -> tensor<f64>
  return %s : tensor<f64>
}
// The gradient w.r.t. x.
func.func @grad_f(%x: tensor<3x4xf64>, %w: tensor<4x5xf64>, %ct: tensor<f64>) -> tensor<3x4xf64> {
  %g = kiln.vjp @f(%x, %w, %ct) wrt [0] : (tensor<3x4xf64>, tensor<4x5xf64>, tensor<f64>) -> tensor<3x4xf64>
  return %g : tensor<3x4xf64>
}

// HVP:     reference: out0 tensor<3x4xf64> matches
// HVP-NOT: matches
func.func @hvp(%x: tensor<3x4xf64>, %w: tensor<4x5xf64>, %ct: tensor<f64>, %v: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %hv = kiln.vjp @grad_f(%x, %w, %ct, %v) wrt [0] : (tensor<3x4xf64>, tensor<4x5xf64>, tensor<f64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  return %hv : tensor<3x4xf64>
}

// HVPMIXED:      reference: out0 tensor<3x4xf64> matches
// HVPMIXED-NEXT: reference: out1 tensor<4x5xf64> matches
// HVPMIXED-NEXT: reference: out2 tensor<f64> matches
// HVPMIXED-NOT:  matches
func.func @hvp_mixed(%x: tensor<3x4xf64>, %w: tensor<4x5xf64>, %ct: tensor<f64>, %v: tensor<3x4xf64>)
    -> (tensor<3x4xf64>, tensor<4x5xf64>, tensor<f64>) {
  %g:3 = kiln.vjp @grad_f(%x, %w, %ct, %v) wrt [0, 1, 2] : (tensor<3x4xf64>, tensor<4x5xf64>, tensor<f64>, tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<4x5xf64>, tensor<f64>)
  return %g#0, %g#1, %g#2 : tensor<3x4xf64>, tensor<4x5xf64>, tensor<f64>
}

// The full Hessian-vector product over (x, W): the inner vjp returns both
// gradients, the outer one takes a cotangent for each.
func.func @grad_f_both(%x: tensor<3x4xf64>, %w: tensor<4x5xf64>, %ct: tensor<f64>) -> (tensor<3x4xf64>, tensor<4x5xf64>) {
  %g:2 = kiln.vjp @f(%x, %w, %ct) wrt [0, 1] : (tensor<3x4xf64>, tensor<4x5xf64>, tensor<f64>) -> (tensor<3x4xf64>, tensor<4x5xf64>)
  return %g#0, %g#1 : tensor<3x4xf64>, tensor<4x5xf64>
}
// HVPFULL:      reference: out0 tensor<3x4xf64> matches
// HVPFULL-NEXT: reference: out1 tensor<4x5xf64> matches
// HVPFULL-NOT:  matches
func.func @hvp_full(%x: tensor<3x4xf64>, %w: tensor<4x5xf64>, %ct: tensor<f64>, %vx: tensor<3x4xf64>, %vw: tensor<4x5xf64>)
    -> (tensor<3x4xf64>, tensor<4x5xf64>) {
  %h:2 = kiln.vjp @grad_f_both(%x, %w, %ct, %vx, %vw) wrt [0, 1] : (tensor<3x4xf64>, tensor<4x5xf64>, tensor<f64>, tensor<3x4xf64>, tensor<4x5xf64>) -> (tensor<3x4xf64>, tensor<4x5xf64>)
  return %h#0, %h#1 : tensor<3x4xf64>, tensor<4x5xf64>
}

//===----------------------------------------------------------------------===//
// The MLP Hessian benchmark in miniature: y = tanh(x w1^T) w2^T
//===----------------------------------------------------------------------===//

func.func @mlp(%x: tensor<4x3xf64>, %w1: tensor<6x3xf64>, %w2: tensor<1x6xf64>) -> tensor<4x1xf64> {
  %z = kiln.matmul %x, %w1 {transpose_b = true} : tensor<4x3xf64>, tensor<6x3xf64> -> tensor<4x6xf64>
  %h = kiln.tanh %z : tensor<4x6xf64>
  %y = kiln.matmul %h, %w2 {transpose_b = true} : tensor<4x6xf64>, tensor<1x6xf64> -> tensor<4x1xf64>
  return %y : tensor<4x1xf64>
}
func.func @mlp_grad(%x: tensor<4x3xf64>, %w1: tensor<6x3xf64>, %w2: tensor<1x6xf64>, %ct: tensor<4x1xf64>) -> tensor<4x3xf64> {
  %g = kiln.vjp @mlp(%x, %w1, %w2, %ct) wrt [0] : (tensor<4x3xf64>, tensor<6x3xf64>, tensor<1x6xf64>, tensor<4x1xf64>) -> tensor<4x3xf64>
  return %g : tensor<4x3xf64>
}

// MLPH:     reference: out0 tensor<4x3xf64> matches
// MLPH-NOT: matches
func.func @mlp_hessian(%x: tensor<4x3xf64>, %w1: tensor<6x3xf64>, %w2: tensor<1x6xf64>,
                       %ct: tensor<4x1xf64>, %v: tensor<4x3xf64>) -> tensor<4x3xf64> {
  %hv = kiln.vjp @mlp_grad(%x, %w1, %w2, %ct, %v) wrt [0] : (tensor<4x3xf64>, tensor<6x3xf64>, tensor<1x6xf64>, tensor<4x1xf64>, tensor<4x3xf64>) -> tensor<4x3xf64>
  return %hv : tensor<4x3xf64>
}

// Three tanh layers.
func.func @mlp3(%x: tensor<4x3xf64>, %w1: tensor<5x3xf64>, %w2: tensor<5x5xf64>, %w3: tensor<1x5xf64>) -> tensor<4x1xf64> {
  %z1 = kiln.matmul %x, %w1 {transpose_b = true} : tensor<4x3xf64>, tensor<5x3xf64> -> tensor<4x5xf64>
  %h1 = kiln.tanh %z1 : tensor<4x5xf64>
  %z2 = kiln.matmul %h1, %w2 {transpose_b = true} : tensor<4x5xf64>, tensor<5x5xf64> -> tensor<4x5xf64>
  %h2 = kiln.tanh %z2 : tensor<4x5xf64>
  %y = kiln.matmul %h2, %w3 {transpose_b = true} : tensor<4x5xf64>, tensor<1x5xf64> -> tensor<4x1xf64>
  return %y : tensor<4x1xf64>
}
func.func @mlp3_grad(%x: tensor<4x3xf64>, %w1: tensor<5x3xf64>, %w2: tensor<5x5xf64>, %w3: tensor<1x5xf64>, %ct: tensor<4x1xf64>) -> tensor<4x3xf64> {
  %g = kiln.vjp @mlp3(%x, %w1, %w2, %w3, %ct) wrt [0] : (tensor<4x3xf64>, tensor<5x3xf64>, tensor<5x5xf64>, tensor<1x5xf64>, tensor<4x1xf64>) -> tensor<4x3xf64>
  return %g : tensor<4x3xf64>
}

// MLP3H:     reference: out0 tensor<4x3xf64> matches
// MLP3H-NOT: matches
func.func @mlp3_hessian(%x: tensor<4x3xf64>, %w1: tensor<5x3xf64>, %w2: tensor<5x5xf64>, %w3: tensor<1x5xf64>,
                        %ct: tensor<4x1xf64>, %v: tensor<4x3xf64>) -> tensor<4x3xf64> {
  %hv = kiln.vjp @mlp3_grad(%x, %w1, %w2, %w3, %ct, %v) wrt [0] : (tensor<4x3xf64>, tensor<5x3xf64>, tensor<5x5xf64>, tensor<1x5xf64>, tensor<4x1xf64>, tensor<4x3xf64>) -> tensor<4x3xf64>
  return %hv : tensor<4x3xf64>
}

// Two layers with biases and a 2-wide output; the second-order vjp w.r.t.
// everything.
func.func @mlp_bias(%x: tensor<4x3xf64>, %w1: tensor<5x3xf64>, %b1: tensor<5xf64>,
                    %w2: tensor<2x5xf64>, %b2: tensor<2xf64>) -> tensor<4x2xf64> {
  %m1 = kiln.matmul %x, %w1 {transpose_b = true} : tensor<4x3xf64>, tensor<5x3xf64> -> tensor<4x5xf64>
  %bb1 = kiln.broadcast_in_dim %b1, dims = [1] : tensor<5xf64> -> tensor<4x5xf64>
  %a1 = kiln.add %m1, %bb1 : tensor<4x5xf64>
  %h1 = kiln.tanh %a1 : tensor<4x5xf64>
  %m2 = kiln.matmul %h1, %w2 {transpose_b = true} : tensor<4x5xf64>, tensor<2x5xf64> -> tensor<4x2xf64>
  %bb2 = kiln.broadcast_in_dim %b2, dims = [1] : tensor<2xf64> -> tensor<4x2xf64>
  %a2 = kiln.add %m2, %bb2 : tensor<4x2xf64>
  %y = kiln.tanh %a2 : tensor<4x2xf64>
  return %y : tensor<4x2xf64>
}
func.func @mlp_bias_grad(%x: tensor<4x3xf64>, %w1: tensor<5x3xf64>, %b1: tensor<5xf64>,
                         %w2: tensor<2x5xf64>, %b2: tensor<2xf64>, %ct: tensor<4x2xf64>) -> tensor<4x3xf64> {
  %g = kiln.vjp @mlp_bias(%x, %w1, %b1, %w2, %b2, %ct) wrt [0]
      : (tensor<4x3xf64>, tensor<5x3xf64>, tensor<5xf64>, tensor<2x5xf64>, tensor<2xf64>, tensor<4x2xf64>) -> tensor<4x3xf64>
  return %g : tensor<4x3xf64>
}

// MLPBH:      reference: out0 tensor<4x3xf64> matches
// MLPBH-NEXT: reference: out1 tensor<5x3xf64> matches
// MLPBH-NEXT: reference: out2 tensor<5xf64> matches
// MLPBH-NEXT: reference: out3 tensor<2x5xf64> matches
// MLPBH-NEXT: reference: out4 tensor<2xf64> matches
// MLPBH-NEXT: reference: out5 tensor<4x2xf64> matches
// MLPBH-NOT:  matches
func.func @mlp_bias_hessian(%x: tensor<4x3xf64>, %w1: tensor<5x3xf64>, %b1: tensor<5xf64>,
                            %w2: tensor<2x5xf64>, %b2: tensor<2xf64>, %ct: tensor<4x2xf64>,
                            %v: tensor<4x3xf64>)
    -> (tensor<4x3xf64>, tensor<5x3xf64>, tensor<5xf64>, tensor<2x5xf64>, tensor<2xf64>, tensor<4x2xf64>) {
  %g:6 = kiln.vjp @mlp_bias_grad(%x, %w1, %b1, %w2, %b2, %ct, %v) wrt [0, 1, 2, 3, 4, 5]
      : (tensor<4x3xf64>, tensor<5x3xf64>, tensor<5xf64>, tensor<2x5xf64>, tensor<2xf64>, tensor<4x2xf64>, tensor<4x3xf64>)
      -> (tensor<4x3xf64>, tensor<5x3xf64>, tensor<5xf64>, tensor<2x5xf64>, tensor<2xf64>, tensor<4x2xf64>)
  return %g#0, %g#1, %g#2, %g#3, %g#4, %g#5
      : tensor<4x3xf64>, tensor<5x3xf64>, tensor<5xf64>, tensor<2x5xf64>, tensor<2xf64>, tensor<4x2xf64>
}

//===----------------------------------------------------------------------===//
// ReLU MLP: piecewise linear in x, so the second derivative is exactly 0
//===----------------------------------------------------------------------===//

func.func @relu_mlp(%x: tensor<4x3xf64>, %w1: tensor<6x3xf64>, %w2: tensor<1x6xf64>) -> tensor<4x1xf64> {
  %z = kiln.matmul %x, %w1 {transpose_b = true} : tensor<4x3xf64>, tensor<6x3xf64> -> tensor<4x6xf64>
  %h = kiln.relu %z : tensor<4x6xf64>
  %y = kiln.matmul %h, %w2 {transpose_b = true} : tensor<4x6xf64>, tensor<1x6xf64> -> tensor<4x1xf64>
  return %y : tensor<4x1xf64>
}
func.func @relu_grad(%x: tensor<4x3xf64>, %w1: tensor<6x3xf64>, %w2: tensor<1x6xf64>, %ct: tensor<4x1xf64>) -> tensor<4x3xf64> {
  %g = kiln.vjp @relu_mlp(%x, %w1, %w2, %ct) wrt [0] : (tensor<4x3xf64>, tensor<6x3xf64>, tensor<1x6xf64>, tensor<4x1xf64>) -> tensor<4x3xf64>
  return %g : tensor<4x3xf64>
}

// RELUH:      out0: tensor<4x3xf64>
// RELUH-NEXT: {{\[\[}}{{-?}}0, {{-?}}0, {{-?}}0],
// RELUH-NEXT: [{{-?}}0, {{-?}}0, {{-?}}0],
// RELUH-NEXT: [{{-?}}0, {{-?}}0, {{-?}}0],
// RELUH-NEXT: [{{-?}}0, {{-?}}0, {{-?}}0]]
// RELUH-NEXT: reference: out0 tensor<4x3xf64> matches
// RELUH-NOT:  matches
func.func @relu_hessian(%x: tensor<4x3xf64>, %w1: tensor<6x3xf64>, %w2: tensor<1x6xf64>,
                        %ct: tensor<4x1xf64>, %v: tensor<4x3xf64>) -> tensor<4x3xf64> {
  %hv = kiln.vjp @relu_grad(%x, %w1, %w2, %ct, %v) wrt [0] : (tensor<4x3xf64>, tensor<6x3xf64>, tensor<1x6xf64>, tensor<4x1xf64>, tensor<4x3xf64>) -> tensor<4x3xf64>
  return %hv : tensor<4x3xf64>
}

// The mixed derivative w.r.t. w1 and w2 is not zero (grad_x is linear in
// both): at least one nonzero element each.
// RELUMIXED:      out0: tensor<4x3xf64>
// RELUMIXED-NEXT: {{\[\[}}{{-?}}0, {{-?}}0, {{-?}}0],
// RELUMIXED-NEXT: [{{-?}}0, {{-?}}0, {{-?}}0],
// RELUMIXED-NEXT: [{{-?}}0, {{-?}}0, {{-?}}0],
// RELUMIXED-NEXT: [{{-?}}0, {{-?}}0, {{-?}}0]]
// RELUMIXED-NEXT: out1: tensor<6x3xf64>
// RELUMIXED-NEXT: {{[1-9]}}
// RELUMIXED:      out2: tensor<1x6xf64>
// RELUMIXED-NEXT: {{[1-9]}}
// RELUMIXED:      reference: out0 tensor<4x3xf64> matches
// RELUMIXED-NEXT: reference: out1 tensor<6x3xf64> matches
// RELUMIXED-NEXT: reference: out2 tensor<1x6xf64> matches
// RELUMIXED-NOT:  matches
func.func @relu_hessian_mixed(%x: tensor<4x3xf64>, %w1: tensor<6x3xf64>, %w2: tensor<1x6xf64>,
                              %ct: tensor<4x1xf64>, %v: tensor<4x3xf64>)
    -> (tensor<4x3xf64>, tensor<6x3xf64>, tensor<1x6xf64>) {
  %g:3 = kiln.vjp @relu_grad(%x, %w1, %w2, %ct, %v) wrt [0, 1, 2]
      : (tensor<4x3xf64>, tensor<6x3xf64>, tensor<1x6xf64>, tensor<4x1xf64>, tensor<4x3xf64>)
      -> (tensor<4x3xf64>, tensor<6x3xf64>, tensor<1x6xf64>)
  return %g#0, %g#1, %g#2 : tensor<4x3xf64>, tensor<6x3xf64>, tensor<1x6xf64>
}

//===----------------------------------------------------------------------===//
// LSTM cell: gradient of sum(h'^2) + sum(c') w.r.t. x and Wx, differentiated
// again w.r.t. x, h and Wx
//===----------------------------------------------------------------------===//

func.func @lstm_loss(%x: tensor<2x3xf64>, %h: tensor<2x4xf64>, %c: tensor<2x4xf64>,
                     %wx: tensor<16x3xf64>, %wh: tensor<16x4xf64>, %b: tensor<16xf64>) -> tensor<f64> {
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
  %hh = kiln.mul %h2, %h2 : tensor<2x4xf64>
  %sum = kiln.add %hh, %c2 : tensor<2x4xf64>
  %l = kiln.reduce_sum %sum, dims = [0, 1] : tensor<2x4xf64> -> tensor<f64>
  return %l : tensor<f64>
}
func.func @lstm_loss_grad(%x: tensor<2x3xf64>, %h: tensor<2x4xf64>, %c: tensor<2x4xf64>,
                          %wx: tensor<16x3xf64>, %wh: tensor<16x4xf64>, %b: tensor<16xf64>,
                          %ct: tensor<f64>) -> (tensor<2x3xf64>, tensor<16x3xf64>) {
  %g:2 = kiln.vjp @lstm_loss(%x, %h, %c, %wx, %wh, %b, %ct) wrt [0, 3]
      : (tensor<2x3xf64>, tensor<2x4xf64>, tensor<2x4xf64>, tensor<16x3xf64>,
         tensor<16x4xf64>, tensor<16xf64>, tensor<f64>) -> (tensor<2x3xf64>, tensor<16x3xf64>)
  return %g#0, %g#1 : tensor<2x3xf64>, tensor<16x3xf64>
}
// LSTM2:      reference: out0 tensor<2x3xf64> matches
// LSTM2-NEXT: reference: out1 tensor<2x4xf64> matches
// LSTM2-NEXT: reference: out2 tensor<16x3xf64> matches
// LSTM2-NOT:  matches
func.func @lstm_second(%x: tensor<2x3xf64>, %h: tensor<2x4xf64>, %c: tensor<2x4xf64>,
                       %wx: tensor<16x3xf64>, %wh: tensor<16x4xf64>, %b: tensor<16xf64>,
                       %ct: tensor<f64>, %vx: tensor<2x3xf64>, %vw: tensor<16x3xf64>)
    -> (tensor<2x3xf64>, tensor<2x4xf64>, tensor<16x3xf64>) {
  %g:3 = kiln.vjp @lstm_loss_grad(%x, %h, %c, %wx, %wh, %b, %ct, %vx, %vw) wrt [0, 1, 3]
      : (tensor<2x3xf64>, tensor<2x4xf64>, tensor<2x4xf64>, tensor<16x3xf64>,
         tensor<16x4xf64>, tensor<16xf64>, tensor<f64>, tensor<2x3xf64>, tensor<16x3xf64>)
      -> (tensor<2x3xf64>, tensor<2x4xf64>, tensor<16x3xf64>)
  return %g#0, %g#1, %g#2 : tensor<2x3xf64>, tensor<2x4xf64>, tensor<16x3xf64>
}
