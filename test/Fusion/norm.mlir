// LayerNorm and RMSNorm over rows, forward and backward. The forwards are
// one row-resident kernel each. The backwards: dx with the forward
// recomputed is one row kernel; dgamma and dbeta reduce over the rows
// (columns), each a kernel of its own (its accumulator's fill in the same
// kernel), and dgamma's operand (dy * xhat) is stored by the row kernel:
// 3 launches, issue 16's goal (the two column reductions are one kernel
// source, deduplicated).
// RUN: kiln-run %s --entry layernorm --random-inputs 1 --check-reference --report | FileCheck %s --check-prefix=LN
// RUN: kiln-run %s --entry layernorm_bwd --random-inputs 2 --check-reference --report | FileCheck %s --check-prefix=LNBWD
// RUN: kiln-run %s --entry rmsnorm --random-inputs 3 --check-reference --report | FileCheck %s --check-prefix=RMS
// RUN: kiln-run %s --entry rmsnorm_bwd --random-inputs 4 --check-reference --report | FileCheck %s --check-prefix=RMSBWD
// The GPU launches as many, the row kernels a warp per row.
// RUN: kiln-run %s --entry layernorm --random-inputs 1 --check-reference --emulate-gpu --report | FileCheck %s --check-prefix=LN-VALUE
// RUN: kiln-run %s --entry layernorm_bwd --random-inputs 2 --check-reference --emulate-gpu --report | FileCheck %s --check-prefix=LNBWD-VALUE
// RUN: kiln-run %s --entry rmsnorm --random-inputs 3 --check-reference --emulate-gpu --report | FileCheck %s --check-prefix=RMS-VALUE
// RUN: kiln-run %s --entry rmsnorm_bwd --random-inputs 4 --check-reference --emulate-gpu --report | FileCheck %s --check-prefix=RMSBWD-VALUE

// LN: reference: out0 tensor<32x100xf32> matches
// LN: "fusion_groups": 1, "unique_kernels": 1, "kernel_launches": 1,
// LNBWD: reference: out0 tensor<32x100xf32> matches
// LNBWD: reference: out1 tensor<100xf32> matches
// LNBWD: reference: out2 tensor<100xf32> matches
// LNBWD: "fusion_groups": 3, "unique_kernels": 2, "kernel_launches": 3,
// RMS: reference: out0 tensor<32x100xf32> matches
// RMS: "fusion_groups": 1, "unique_kernels": 1, "kernel_launches": 1,
// RMSBWD: reference: out0 tensor<32x100xf32> matches
// RMSBWD: reference: out1 tensor<100xf32> matches
// RMSBWD: "fusion_groups": 2, "unique_kernels": 2, "kernel_launches": 2,
// LNBWD-VALUE: reference: out0 tensor<32x100xf32> matches
// LNBWD-VALUE: reference: out1 tensor<100xf32> matches
// LNBWD-VALUE: reference: out2 tensor<100xf32> matches
// LNBWD-VALUE: "kernel_launches": 3,
// RMSBWD-VALUE: reference: out0 tensor<32x100xf32> matches
// RMSBWD-VALUE: reference: out1 tensor<100xf32> matches
// RMSBWD-VALUE: "kernel_launches": 2,
// LN-VALUE: reference: out0 tensor<32x100xf32> matches
// LN-VALUE: "kernel_launches": 1,
// RMS-VALUE: reference: out0 tensor<32x100xf32> matches
// RMS-VALUE: "kernel_launches": 1,

func.func @layernorm(%x: tensor<32x100xf32>, %g: tensor<100xf32>, %b: tensor<100xf32>) -> tensor<32x100xf32> {
  %inv_n = "kiln.constant"() <{value = dense<0.01> : tensor<32xf32>}> : () -> tensor<32xf32>
  %eps = "kiln.constant"() <{value = dense<1.0e-5> : tensor<32xf32>}> : () -> tensor<32xf32>
  %s = "kiln.reduce_sum"(%x) <{dims = array<i64: 1>}> : (tensor<32x100xf32>) -> tensor<32xf32>
  %mean = "kiln.mul"(%s, %inv_n) : (tensor<32xf32>, tensor<32xf32>) -> tensor<32xf32>
  %mb = "kiln.broadcast_in_dim"(%mean) <{dims = array<i64: 0>}> : (tensor<32xf32>) -> tensor<32x100xf32>
  %xc = "kiln.sub"(%x, %mb) : (tensor<32x100xf32>, tensor<32x100xf32>) -> tensor<32x100xf32>
  %sq = "kiln.mul"(%xc, %xc) : (tensor<32x100xf32>, tensor<32x100xf32>) -> tensor<32x100xf32>
  %ss = "kiln.reduce_sum"(%sq) <{dims = array<i64: 1>}> : (tensor<32x100xf32>) -> tensor<32xf32>
  %var = "kiln.mul"(%ss, %inv_n) : (tensor<32xf32>, tensor<32xf32>) -> tensor<32xf32>
  %ve = "kiln.add"(%var, %eps) : (tensor<32xf32>, tensor<32xf32>) -> tensor<32xf32>
  %rstd = "kiln.rsqrt"(%ve) : (tensor<32xf32>) -> tensor<32xf32>
  %rb = "kiln.broadcast_in_dim"(%rstd) <{dims = array<i64: 0>}> : (tensor<32xf32>) -> tensor<32x100xf32>
  %xh = "kiln.mul"(%xc, %rb) : (tensor<32x100xf32>, tensor<32x100xf32>) -> tensor<32x100xf32>
  %gb = "kiln.broadcast_in_dim"(%g) <{dims = array<i64: 1>}> : (tensor<100xf32>) -> tensor<32x100xf32>
  %bb = "kiln.broadcast_in_dim"(%b) <{dims = array<i64: 1>}> : (tensor<100xf32>) -> tensor<32x100xf32>
  %y0 = "kiln.mul"(%xh, %gb) : (tensor<32x100xf32>, tensor<32x100xf32>) -> tensor<32x100xf32>
  %y = "kiln.add"(%y0, %bb) : (tensor<32x100xf32>, tensor<32x100xf32>) -> tensor<32x100xf32>
  return %y : tensor<32x100xf32>
}

func.func @layernorm_bwd(%x: tensor<32x100xf32>, %g: tensor<100xf32>, %b: tensor<100xf32>, %dy: tensor<32x100xf32>) -> (tensor<32x100xf32>, tensor<100xf32>, tensor<100xf32>) {
  %dx, %dg, %db = "kiln.vjp"(%x, %g, %b, %dy) <{callee = @layernorm, wrt = array<i64: 0, 1, 2>}> : (tensor<32x100xf32>, tensor<100xf32>, tensor<100xf32>, tensor<32x100xf32>) -> (tensor<32x100xf32>, tensor<100xf32>, tensor<100xf32>)
  return %dx, %dg, %db : tensor<32x100xf32>, tensor<100xf32>, tensor<100xf32>
}

func.func @rmsnorm(%x: tensor<32x100xf32>, %g: tensor<100xf32>) -> tensor<32x100xf32> {
  %inv_n = kiln.constant dense<0.01> : tensor<32xf32>
  %eps = kiln.constant dense<1.0e-6> : tensor<32xf32>
  %sq = kiln.mul %x, %x : tensor<32x100xf32>
  %ss = kiln.reduce_sum %sq, dims = [1] : tensor<32x100xf32> -> tensor<32xf32>
  %ms = kiln.mul %ss, %inv_n : tensor<32xf32>
  %me = kiln.add %ms, %eps : tensor<32xf32>
  %r = kiln.rsqrt %me : tensor<32xf32>
  %rb = kiln.broadcast_in_dim %r, dims = [0] : tensor<32xf32> -> tensor<32x100xf32>
  %gb = kiln.broadcast_in_dim %g, dims = [1] : tensor<100xf32> -> tensor<32x100xf32>
  %n = kiln.mul %x, %rb : tensor<32x100xf32>
  %y = kiln.mul %n, %gb : tensor<32x100xf32>
  return %y : tensor<32x100xf32>
}

func.func @rmsnorm_bwd(%x: tensor<32x100xf32>, %g: tensor<100xf32>, %dy: tensor<32x100xf32>) -> (tensor<32x100xf32>, tensor<100xf32>) {
  %dx, %dg = kiln.vjp @rmsnorm(%x, %g, %dy) wrt [0, 1] : (tensor<32x100xf32>, tensor<100xf32>, tensor<32x100xf32>) -> (tensor<32x100xf32>, tensor<100xf32>)
  return %dx, %dg : tensor<32x100xf32>, tensor<100xf32>
}
