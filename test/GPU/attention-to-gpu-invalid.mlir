// RUN: kiln-opt %s -split-input-file -kiln-attention-to-gpu -verify-diagnostics

// The calls -kiln-lower-to-linalg makes carry their steps; one without
// them is refused, not guessed.
func.func private @kiln_gpu_attention_f32(memref<2x4x8xf32>, memref<2x4x8xf32>, memref<2x4x8xf32>, memref<2x4x8xf32>, memref<2x4xf32>, memref<2x4xf32>)
func.func @no_steps(%q: memref<2x4x8xf32>, %o: memref<2x4x8xf32>, %m: memref<2x4xf32>, %l: memref<2x4xf32>) {
  // expected-error @below {{an attention call needs its operands and kiln.score_steps}}
  func.call @kiln_gpu_attention_f32(%q, %q, %q, %o, %m, %l) : (memref<2x4x8xf32>, memref<2x4x8xf32>, memref<2x4x8xf32>, memref<2x4x8xf32>, memref<2x4xf32>, memref<2x4xf32>) -> ()
  return
}

// -----

// Steps that name a score operand the call does not have.
func.func private @kiln_gpu_attention_f32_0(memref<2x4x8xf32>, memref<2x4x8xf32>, memref<2x4x8xf32>, memref<2x4x8xf32>, memref<2x4xf32>, memref<2x4xf32>)
func.func @bad_steps(%q: memref<2x4x8xf32>, %o: memref<2x4x8xf32>, %m: memref<2x4xf32>, %l: memref<2x4xf32>) {
  // expected-error @below {{malformed attention call}}
  func.call @kiln_gpu_attention_f32_0(%q, %q, %q, %o, %m, %l) {kiln.score_steps = array<i64: 0, 3, -1>} : (memref<2x4x8xf32>, memref<2x4x8xf32>, memref<2x4x8xf32>, memref<2x4x8xf32>, memref<2x4xf32>, memref<2x4xf32>) -> ()
  return
}

// -----

// A gradient call with fewer operands than q, k, v, o, m, l, do and its
// three results.
func.func private @kiln_gpu_attention_grad_f32(memref<2x4x8xf32>, memref<2x4x8xf32>, memref<2x4x8xf32>)
func.func @short_grad(%q: memref<2x4x8xf32>) {
  // expected-error @below {{an attention call needs its operands and kiln.score_steps}}
  func.call @kiln_gpu_attention_grad_f32(%q, %q, %q) {kiln.score_steps = array<i64>} : (memref<2x4x8xf32>, memref<2x4x8xf32>, memref<2x4x8xf32>) -> ()
  return
}
