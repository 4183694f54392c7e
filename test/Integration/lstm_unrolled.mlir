// RUN: kiln-opt %s -kiln-cpu-pipeline=blas=true | FileCheck %s
// RUN: kiln-run %s --random-inputs 5 --check-reference --report | FileCheck %s --check-prefix=REF --check-prefix=PROGRAM
// RUN: kiln-run %s --random-inputs 5 --check-reference --report --compile-host | FileCheck %s --check-prefix=REF --check-prefix=COMPILED
// RUN: %host_python -c "import sys; sys.path.insert(0, '%kiln_src_root/bench/compile_lstm'); import run; print(run.source(12, 4, 8, 8))" > %t.12.mlir
// RUN: kiln-run %t.12.mlir --random-inputs 6 --check-reference --report | FileCheck %s --check-prefix=LONG

// A 3-step unrolled LSTM, forward and the gradients of sum(h_3) w.r.t. every
// input and weight (bench/compile_lstm's program, small). Every concat
// (the backward cell's gate gradients) is one buffer that its kernel's loop
// nests write in place: nothing is copied anywhere, and the results match
// the reference interpreter.
// The weight gradients are sums of one product per step: each add is its
// matmul's epilogue (BLAS's beta = 1), so 6 groups remain: the forward cell,
// the backward cell, the last step's forward and first backward (one group)
// and the bias gradient (a reduction epilogue).
// CHECK: module attributes {kiln.fusion_groups = 6 : i64, kiln.kernel_launches = 24 : i64, kiln.unique_kernels = 4 : i64}
// CHECK-NOT: memcpy
// The same 4 kernels for 12 steps (24 groups): however long the sequence,
// one forward cell, one backward cell, the last step (forward and first
// backward step fused, with dh = 1 folded in) and the bias gradient.
// LONG-COUNT-17: matches
// LONG: "fusion_groups": 24, "unique_kernels": 4
// CHECK-NOT: memrefCopy
// CHECK-NOT: linalg.copy
// REF-COUNT-8: matches
// The host code runs as a host program (its steps: allocations, frees,
// kernel and BLAS launches), or, asked to, is compiled like the kernels.
// PROGRAM: "kernel_launches": 24, "host_steps": {{[1-9][0-9]+}}
// COMPILED: "kernel_launches": 24, "host_steps": 0

func.func private @net(%x0: tensor<4x8xf32>, %x1: tensor<4x8xf32>, %x2: tensor<4x8xf32>, %wx: tensor<32x8xf32>, %wh: tensor<32x8xf32>, %bias: tensor<32xf32>, %h0: tensor<4x8xf32>, %c0: tensor<4x8xf32>) -> tensor<4xf32> {
  %bb = kiln.broadcast_in_dim %bias, dims = [1] : tensor<32xf32> -> tensor<4x32xf32>
  %s0_xw = kiln.matmul %x0, %wx {transpose_b = true} : tensor<4x8xf32>, tensor<32x8xf32> -> tensor<4x32xf32>
  %s0_hw = kiln.matmul %h0, %wh {transpose_b = true} : tensor<4x8xf32>, tensor<32x8xf32> -> tensor<4x32xf32>
  %s0_s = kiln.add %s0_xw, %s0_hw : tensor<4x32xf32>
  %s0_g = kiln.add %s0_s, %bb : tensor<4x32xf32>
  %s0_i0 = kiln.slice %s0_g, offsets = [0, 0], sizes = [4, 8] : tensor<4x32xf32> -> tensor<4x8xf32>
  %s0_f0 = kiln.slice %s0_g, offsets = [0, 8], sizes = [4, 8] : tensor<4x32xf32> -> tensor<4x8xf32>
  %s0_g0 = kiln.slice %s0_g, offsets = [0, 16], sizes = [4, 8] : tensor<4x32xf32> -> tensor<4x8xf32>
  %s0_o0 = kiln.slice %s0_g, offsets = [0, 24], sizes = [4, 8] : tensor<4x32xf32> -> tensor<4x8xf32>
  %s0_i = kiln.sigmoid %s0_i0 : tensor<4x8xf32>
  %s0_f = kiln.sigmoid %s0_f0 : tensor<4x8xf32>
  %s0_gg = kiln.tanh %s0_g0 : tensor<4x8xf32>
  %s0_o = kiln.sigmoid %s0_o0 : tensor<4x8xf32>
  %s0_fc = kiln.mul %s0_f, %c0 : tensor<4x8xf32>
  %s0_ig = kiln.mul %s0_i, %s0_gg : tensor<4x8xf32>
  %s0_c = kiln.add %s0_fc, %s0_ig : tensor<4x8xf32>
  %s0_tc = kiln.tanh %s0_c : tensor<4x8xf32>
  %s0_h = kiln.mul %s0_o, %s0_tc : tensor<4x8xf32>
  %s1_xw = kiln.matmul %x1, %wx {transpose_b = true} : tensor<4x8xf32>, tensor<32x8xf32> -> tensor<4x32xf32>
  %s1_hw = kiln.matmul %s0_h, %wh {transpose_b = true} : tensor<4x8xf32>, tensor<32x8xf32> -> tensor<4x32xf32>
  %s1_s = kiln.add %s1_xw, %s1_hw : tensor<4x32xf32>
  %s1_g = kiln.add %s1_s, %bb : tensor<4x32xf32>
  %s1_i0 = kiln.slice %s1_g, offsets = [0, 0], sizes = [4, 8] : tensor<4x32xf32> -> tensor<4x8xf32>
  %s1_f0 = kiln.slice %s1_g, offsets = [0, 8], sizes = [4, 8] : tensor<4x32xf32> -> tensor<4x8xf32>
  %s1_g0 = kiln.slice %s1_g, offsets = [0, 16], sizes = [4, 8] : tensor<4x32xf32> -> tensor<4x8xf32>
  %s1_o0 = kiln.slice %s1_g, offsets = [0, 24], sizes = [4, 8] : tensor<4x32xf32> -> tensor<4x8xf32>
  %s1_i = kiln.sigmoid %s1_i0 : tensor<4x8xf32>
  %s1_f = kiln.sigmoid %s1_f0 : tensor<4x8xf32>
  %s1_gg = kiln.tanh %s1_g0 : tensor<4x8xf32>
  %s1_o = kiln.sigmoid %s1_o0 : tensor<4x8xf32>
  %s1_fc = kiln.mul %s1_f, %s0_c : tensor<4x8xf32>
  %s1_ig = kiln.mul %s1_i, %s1_gg : tensor<4x8xf32>
  %s1_c = kiln.add %s1_fc, %s1_ig : tensor<4x8xf32>
  %s1_tc = kiln.tanh %s1_c : tensor<4x8xf32>
  %s1_h = kiln.mul %s1_o, %s1_tc : tensor<4x8xf32>
  %s2_xw = kiln.matmul %x2, %wx {transpose_b = true} : tensor<4x8xf32>, tensor<32x8xf32> -> tensor<4x32xf32>
  %s2_hw = kiln.matmul %s1_h, %wh {transpose_b = true} : tensor<4x8xf32>, tensor<32x8xf32> -> tensor<4x32xf32>
  %s2_s = kiln.add %s2_xw, %s2_hw : tensor<4x32xf32>
  %s2_g = kiln.add %s2_s, %bb : tensor<4x32xf32>
  %s2_i0 = kiln.slice %s2_g, offsets = [0, 0], sizes = [4, 8] : tensor<4x32xf32> -> tensor<4x8xf32>
  %s2_f0 = kiln.slice %s2_g, offsets = [0, 8], sizes = [4, 8] : tensor<4x32xf32> -> tensor<4x8xf32>
  %s2_g0 = kiln.slice %s2_g, offsets = [0, 16], sizes = [4, 8] : tensor<4x32xf32> -> tensor<4x8xf32>
  %s2_o0 = kiln.slice %s2_g, offsets = [0, 24], sizes = [4, 8] : tensor<4x32xf32> -> tensor<4x8xf32>
  %s2_i = kiln.sigmoid %s2_i0 : tensor<4x8xf32>
  %s2_f = kiln.sigmoid %s2_f0 : tensor<4x8xf32>
  %s2_gg = kiln.tanh %s2_g0 : tensor<4x8xf32>
  %s2_o = kiln.sigmoid %s2_o0 : tensor<4x8xf32>
  %s2_fc = kiln.mul %s2_f, %s1_c : tensor<4x8xf32>
  %s2_ig = kiln.mul %s2_i, %s2_gg : tensor<4x8xf32>
  %s2_c = kiln.add %s2_fc, %s2_ig : tensor<4x8xf32>
  %s2_tc = kiln.tanh %s2_c : tensor<4x8xf32>
  %s2_h = kiln.mul %s2_o, %s2_tc : tensor<4x8xf32>
  %loss = kiln.reduce_sum %s2_h, dims = [1] : tensor<4x8xf32> -> tensor<4xf32>
  return %loss : tensor<4xf32>
}
func.func @main(%x0: tensor<4x8xf32>, %x1: tensor<4x8xf32>, %x2: tensor<4x8xf32>, %wx: tensor<32x8xf32>, %wh: tensor<32x8xf32>, %bias: tensor<32xf32>, %h0: tensor<4x8xf32>, %c0: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<32x8xf32>, tensor<32x8xf32>, tensor<32xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %ones = kiln.constant dense<1.0> : tensor<4xf32>
  %g:8 = kiln.vjp @net(%x0, %x1, %x2, %wx, %wh, %bias, %h0, %c0, %ones) wrt [0, 1, 2, 3, 4, 5, 6, 7] : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<32x8xf32>, tensor<32x8xf32>, tensor<32xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<32x8xf32>, tensor<32x8xf32>, tensor<32xf32>, tensor<4x8xf32>, tensor<4x8xf32>)
  return %g#0, %g#1, %g#2, %g#3, %g#4, %g#5, %g#6, %g#7 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<32x8xf32>, tensor<32x8xf32>, tensor<32xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

