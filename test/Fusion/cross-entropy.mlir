// Cross-entropy from logits (mean over rows of logsumexp(z) - sum(y * z)),
// forward and backward. The backward is one row kernel: the loss scale
// (dloss / N, a chain of scalars) is computed in it rather than in kernels
// of its own (-kiln-fuse moves input chains into the broadcasts that read
// them), and a per-row scale read through a broadcast is part of the row
// group. The forward: the row kernel, the mean over rows (a reduction over
// every dim, its fill in the same kernel) and the scale.
// RUN: kiln-run %s --entry cross_entropy --random-inputs 1 --check-reference --report | FileCheck %s --check-prefix=FWD
// RUN: kiln-run %s --entry cross_entropy_bwd --random-inputs 2 --check-reference --report | FileCheck %s --check-prefix=BWD
// RUN: kiln-run %s --entry cross_entropy --random-inputs 1 --check-reference --emulate-gpu | FileCheck %s --check-prefix=FWD-VALUE
// RUN: kiln-run %s --entry cross_entropy_bwd --random-inputs 2 --check-reference --emulate-gpu | FileCheck %s --check-prefix=BWD-VALUE
// RUN: kiln-opt %s -kiln-autodiff -inline -symbol-dce -canonicalize -cse -kiln-fuse -mlir-pass-statistics 2>&1 | FileCheck %s --check-prefix=STATS

// FWD: reference: out0 tensor<f32> matches
// FWD: "kernel_launches": 3,
// BWD: reference: out0 tensor<32x100xf32> matches
// BWD: "fusion_groups": 1, "unique_kernels": 1, "kernel_launches": 1,
// FWD-VALUE: reference: out0 tensor<f32> matches
// BWD-VALUE: reference: out0 tensor<32x100xf32> matches
// STATS: 4 kiln-fusion-groups
// STATS-NEXT: 2 kiln-row-groups

func.func @cross_entropy(%z: tensor<32x100xf32>, %y: tensor<32x100xf32>) -> tensor<f32> {
  %m = "kiln.reduce_max"(%z) <{dims = array<i64: 1>}> : (tensor<32x100xf32>) -> tensor<32xf32>
  %mb = "kiln.broadcast_in_dim"(%m) <{dims = array<i64: 0>}> : (tensor<32xf32>) -> tensor<32x100xf32>
  %d = "kiln.sub"(%z, %mb) : (tensor<32x100xf32>, tensor<32x100xf32>) -> tensor<32x100xf32>
  %e = "kiln.exp"(%d) : (tensor<32x100xf32>) -> tensor<32x100xf32>
  %s = "kiln.reduce_sum"(%e) <{dims = array<i64: 1>}> : (tensor<32x100xf32>) -> tensor<32xf32>
  %lse = "kiln.log"(%s) : (tensor<32xf32>) -> tensor<32xf32>
  %yz = "kiln.mul"(%y, %d) : (tensor<32x100xf32>, tensor<32x100xf32>) -> tensor<32x100xf32>
  %picked = "kiln.reduce_sum"(%yz) <{dims = array<i64: 1>}> : (tensor<32x100xf32>) -> tensor<32xf32>
  %row = "kiln.sub"(%lse, %picked) : (tensor<32xf32>, tensor<32xf32>) -> tensor<32xf32>
  %total = "kiln.reduce_sum"(%row) <{dims = array<i64: 0>}> : (tensor<32xf32>) -> tensor<f32>
  %inv = "kiln.constant"() <{value = dense<3.125000e-02> : tensor<f32>}> : () -> tensor<f32>
  %loss = "kiln.mul"(%total, %inv) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %loss : tensor<f32>
}
func.func @cross_entropy_bwd(%z: tensor<32x100xf32>, %y: tensor<32x100xf32>, %dl: tensor<f32>) -> tensor<32x100xf32> {
  %dz = "kiln.vjp"(%z, %y, %dl) <{callee = @cross_entropy, wrt = array<i64: 0>}> : (tensor<32x100xf32>, tensor<32x100xf32>, tensor<f32>) -> tensor<32x100xf32>
  return %dz : tensor<32x100xf32>
}
