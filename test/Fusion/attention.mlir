// Attention: softmax(q k^T / sqrt(d) + mask) v over 4 heads of 16 queries
// and keys of 8 dims, forward and backward (gradients of q, k and v).
// On the CPU, -kiln-fuse-attention makes it one kiln.attention: one call of
// the runtime's blockwise kernel, no score matrix, no kernel of kiln's
// own; the backward recomputes the forward's row statistics (one call) and
// runs kiln.attention_grad (another).
// On the GPU path (here emulated) it runs on -kiln-attention-to-gpu's
// kernels: the forward one launch, the backward the forward's again (its
// row statistics) and the dq, dk and dv launches; no fusion group, no
// score matrix.
// RUN: kiln-run %s --entry attention --random-inputs 1 --check-reference --report | FileCheck %s --check-prefix=FWD
// RUN: kiln-run %s --entry attention_bwd --random-inputs 2 --check-reference --report | FileCheck %s --check-prefix=BWD
// RUN: kiln-run %s --entry attention --random-inputs 1 --check-reference --emulate-gpu --report | FileCheck %s --check-prefix=FWD-GPU
// RUN: kiln-run %s --entry attention_bwd --random-inputs 2 --check-reference --emulate-gpu --report | FileCheck %s --check-prefix=BWD-GPU

// FWD: reference: out0 tensor<4x16x8xf32> matches
// FWD: "fusion_groups": 0, "unique_kernels": 0, "kernel_launches": 1,
// BWD-COUNT-3: reference: out{{[0-2]}} tensor<4x16x8xf32> matches
// BWD: "fusion_groups": 0, "unique_kernels": 0, "kernel_launches": 2,
// FWD-GPU: reference: out0 tensor<4x16x8xf32> matches
// FWD-GPU: "fusion_groups": 0, "unique_kernels": 0, "kernel_launches": 1,
// BWD-GPU-COUNT-3: reference: out{{[0-2]}} tensor<4x16x8xf32> matches
// BWD-GPU: "fusion_groups": 0, "unique_kernels": 0, "kernel_launches": 4,

func.func @attention(%q: tensor<4x16x8xf32>, %k: tensor<4x16x8xf32>, %v: tensor<4x16x8xf32>, %mask: tensor<16x16xf32>) -> tensor<4x16x8xf32> {
  %s0 = "kiln.matmul"(%q, %k) <{transpose_b = true}> : (tensor<4x16x8xf32>, tensor<4x16x8xf32>) -> tensor<4x16x16xf32>
  %scale = "kiln.constant"() <{value = dense<0.35355339> : tensor<4x16x16xf32>}> : () -> tensor<4x16x16xf32>
  %s1 = "kiln.mul"(%s0, %scale) : (tensor<4x16x16xf32>, tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
  %mb = "kiln.broadcast_in_dim"(%mask) <{dims = array<i64: 1, 2>}> : (tensor<16x16xf32>) -> tensor<4x16x16xf32>
  %s = "kiln.add"(%s1, %mb) : (tensor<4x16x16xf32>, tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
  %m = "kiln.reduce_max"(%s) <{dims = array<i64: 2>}> : (tensor<4x16x16xf32>) -> tensor<4x16xf32>
  %mx = "kiln.broadcast_in_dim"(%m) <{dims = array<i64: 0, 1>}> : (tensor<4x16xf32>) -> tensor<4x16x16xf32>
  %d = "kiln.sub"(%s, %mx) : (tensor<4x16x16xf32>, tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
  %e = "kiln.exp"(%d) : (tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
  %z = "kiln.reduce_sum"(%e) <{dims = array<i64: 2>}> : (tensor<4x16x16xf32>) -> tensor<4x16xf32>
  %zb = "kiln.broadcast_in_dim"(%z) <{dims = array<i64: 0, 1>}> : (tensor<4x16xf32>) -> tensor<4x16x16xf32>
  %p = "kiln.div"(%e, %zb) : (tensor<4x16x16xf32>, tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
  %o = "kiln.matmul"(%p, %v) : (tensor<4x16x16xf32>, tensor<4x16x8xf32>) -> tensor<4x16x8xf32>
  return %o : tensor<4x16x8xf32>
}

func.func @attention_bwd(%q: tensor<4x16x8xf32>, %k: tensor<4x16x8xf32>, %v: tensor<4x16x8xf32>, %mask: tensor<16x16xf32>, %do: tensor<4x16x8xf32>) -> (tensor<4x16x8xf32>, tensor<4x16x8xf32>, tensor<4x16x8xf32>) {
  %dq, %dk, %dv = "kiln.vjp"(%q, %k, %v, %mask, %do) <{callee = @attention, wrt = array<i64: 0, 1, 2>}> : (tensor<4x16x8xf32>, tensor<4x16x8xf32>, tensor<4x16x8xf32>, tensor<16x16xf32>, tensor<4x16x8xf32>) -> (tensor<4x16x8xf32>, tensor<4x16x8xf32>, tensor<4x16x8xf32>)
  return %dq, %dk, %dv : tensor<4x16x8xf32>, tensor<4x16x8xf32>, tensor<4x16x8xf32>
}
