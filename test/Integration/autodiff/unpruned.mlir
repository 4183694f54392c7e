// -kiln-autodiff with prune=false (the naive derivation, which builds every
// adjoint, also those that reach no wrt argument) must compute the same
// gradients as the default pruned expansion. kiln-opt expands the vjps
// naively, kiln-run compiles the result; the pruned run of this file
// (checked against the reference interpreter's finite differences) is the
// baseline, and Inputs/npy.py compares the two sets of outputs.

// RUN: rm -rf %t && mkdir -p %t
// RUN: kiln-opt %s -kiln-autodiff=prune=false -o %t/naive.mlir
// RUN: not grep kiln.vjp %t/naive.mlir

// RUN: kiln-run %s --entry mlp_grad_x --random-inputs 901 --check-reference --rtol 1e-7 --atol 1e-9 --output-dir %t/pruned/mlp | FileCheck %s --check-prefix=REF1
// RUN: kiln-run %t/naive.mlir --entry mlp_grad_x --random-inputs 901 --output-dir %t/naive/mlp
// RUN: %host_python %S/Inputs/npy.py compare %t/naive/mlp %t/pruned/mlp 1e-10 1e-12 | FileCheck %s --check-prefix=SAME1

// RUN: kiln-run %s --entry lstm_grad_x_c --random-inputs 902 --check-reference --rtol 1e-7 --atol 1e-9 --output-dir %t/pruned/lstm | FileCheck %s --check-prefix=REF2
// RUN: kiln-run %t/naive.mlir --entry lstm_grad_x_c --random-inputs 902 --output-dir %t/naive/lstm
// RUN: %host_python %S/Inputs/npy.py compare %t/naive/lstm %t/pruned/lstm 1e-10 1e-12 | FileCheck %s --check-prefix=SAME2

// RUN: kiln-run %s --entry mlp_hessian --random-inputs 903 --check-reference --rtol 1e-4 --atol 2e-5 --output-dir %t/pruned/hess | FileCheck %s --check-prefix=REF1
// RUN: kiln-run %t/naive.mlir --entry mlp_hessian --random-inputs 903 --output-dir %t/naive/hess
// RUN: %host_python %S/Inputs/npy.py compare %t/naive/hess %t/pruned/hess 1e-10 1e-12 | FileCheck %s --check-prefix=SAME1

// The ReLU second derivative is zero in the naive derivation too.
// RUN: kiln-run %t/naive.mlir --entry relu_hessian --random-inputs 904 --print | FileCheck %s --check-prefix=RELU

// REF1:      reference: out0 tensor<4x3xf64> matches
// REF1-NOT:  matches
// SAME1:     npy: out0.npy <f8 4x3 matches
// REF2:      reference: out0 tensor<2x3xf64> matches
// REF2-NEXT: reference: out1 tensor<2x4xf64> matches
// REF2-NOT:  matches
// SAME2:      npy: out0.npy <f8 2x3 matches
// SAME2-NEXT: npy: out1.npy <f8 2x4 matches

func.func @mlp(%x: tensor<4x3xf64>, %w1: tensor<6x3xf64>, %b1: tensor<6xf64>,
               %w2: tensor<2x6xf64>, %b2: tensor<2xf64>) -> tensor<4x2xf64> {
  %m1 = kiln.matmul %x, %w1 {transpose_b = true} : tensor<4x3xf64>, tensor<6x3xf64> -> tensor<4x6xf64>
  %bb1 = kiln.broadcast_in_dim %b1, dims = [1] : tensor<6xf64> -> tensor<4x6xf64>
  %a1 = kiln.add %m1, %bb1 : tensor<4x6xf64>
  %h1 = kiln.tanh %a1 : tensor<4x6xf64>
  %m2 = kiln.matmul %h1, %w2 {transpose_b = true} : tensor<4x6xf64>, tensor<2x6xf64> -> tensor<4x2xf64>
  %bb2 = kiln.broadcast_in_dim %b2, dims = [1] : tensor<2xf64> -> tensor<4x2xf64>
  %y = kiln.add %m2, %bb2 : tensor<4x2xf64>
  return %y : tensor<4x2xf64>
}
func.func @mlp_grad_x(%x: tensor<4x3xf64>, %w1: tensor<6x3xf64>, %b1: tensor<6xf64>,
                      %w2: tensor<2x6xf64>, %b2: tensor<2xf64>, %ct: tensor<4x2xf64>) -> tensor<4x3xf64> {
  %g = kiln.vjp @mlp(%x, %w1, %b1, %w2, %b2, %ct) wrt [0]
      : (tensor<4x3xf64>, tensor<6x3xf64>, tensor<6xf64>, tensor<2x6xf64>, tensor<2xf64>, tensor<4x2xf64>) -> tensor<4x3xf64>
  return %g : tensor<4x3xf64>
}
func.func @mlp_hessian(%x: tensor<4x3xf64>, %w1: tensor<6x3xf64>, %b1: tensor<6xf64>,
                       %w2: tensor<2x6xf64>, %b2: tensor<2xf64>, %ct: tensor<4x2xf64>,
                       %v: tensor<4x3xf64>) -> tensor<4x3xf64> {
  %hv = kiln.vjp @mlp_grad_x(%x, %w1, %b1, %w2, %b2, %ct, %v) wrt [0]
      : (tensor<4x3xf64>, tensor<6x3xf64>, tensor<6xf64>, tensor<2x6xf64>, tensor<2xf64>, tensor<4x2xf64>, tensor<4x3xf64>) -> tensor<4x3xf64>
  return %hv : tensor<4x3xf64>
}

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
// Gradients w.r.t. x and c only: the naive derivation also builds the
// weight gradients and throws them away.
func.func @lstm_grad_x_c(%x: tensor<2x3xf64>, %h: tensor<2x4xf64>, %c: tensor<2x4xf64>,
                         %wx: tensor<16x3xf64>, %wh: tensor<16x4xf64>, %b: tensor<16xf64>,
                         %ct_h: tensor<2x4xf64>, %ct_c: tensor<2x4xf64>)
    -> (tensor<2x3xf64>, tensor<2x4xf64>) {
  %g:2 = kiln.vjp @lstm_cell(%x, %h, %c, %wx, %wh, %b, %ct_h, %ct_c) wrt [0, 2]
      : (tensor<2x3xf64>, tensor<2x4xf64>, tensor<2x4xf64>, tensor<16x3xf64>,
         tensor<16x4xf64>, tensor<16xf64>, tensor<2x4xf64>, tensor<2x4xf64>)
      -> (tensor<2x3xf64>, tensor<2x4xf64>)
  return %g#0, %g#1 : tensor<2x3xf64>, tensor<2x4xf64>
}

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
// RELU:      out0: tensor<4x3xf64>
// RELU-NEXT: {{\[\[}}{{-?}}0, {{-?}}0, {{-?}}0],
// RELU-NEXT: [{{-?}}0, {{-?}}0, {{-?}}0],
// RELU-NEXT: [{{-?}}0, {{-?}}0, {{-?}}0],
// RELU-NEXT: [{{-?}}0, {{-?}}0, {{-?}}0]]
func.func @relu_hessian(%x: tensor<4x3xf64>, %w1: tensor<6x3xf64>, %w2: tensor<1x6xf64>,
                        %ct: tensor<4x1xf64>, %v: tensor<4x3xf64>) -> tensor<4x3xf64> {
  %hv = kiln.vjp @relu_grad(%x, %w1, %w2, %ct, %v) wrt [0] : (tensor<4x3xf64>, tensor<6x3xf64>, tensor<1x6xf64>, tensor<4x1xf64>, tensor<4x3xf64>) -> tensor<4x3xf64>
  return %hv : tensor<4x3xf64>
}
