// Checkpointing (kiln.utils.checkpoint.checkpoint): where the derivative
// reads a value computed inside a checkpoint segment (ops marked
// kiln.checkpoint = N), -kiln-autodiff recomputes it from the segment's
// inputs just before the first derivative op that needs it, in copies
// marked kiln.recomputed that CSE keeps apart from the forward. A
// segment's outputs (values other segments read) are kept, as torch's are.
// RUN: kiln-opt %s -kiln-autodiff -canonicalize -cse -split-input-file | FileCheck %s
// Over both functions below: block 1's and block 2's product and tanh.
// RUN: kiln-opt %s -kiln-autodiff -mlir-pass-statistics -split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS

// Two blocks h = tanh(h @ w) + h, each a segment. The loss's derivative
// recomputes block 2's product and tanh from h1 (kept: block 2 reads it),
// then block 1's from x, each just before its segment's adjoint.
// CHECK-LABEL: func.func @two_blocks
// CHECK-SAME: (%[[X:.+]]: tensor<4x8xf32>, %[[W1:.+]]: tensor<8x8xf32>, %[[W2:.+]]: tensor<8x8xf32>)
// The forward: block 1's output only (block 2's output is not needed).
// CHECK:      %[[Z1:.+]] = kiln.matmul %[[X]], %[[W1]] {kiln.checkpoint = 1 : i64}
// CHECK-NEXT: %[[T1:.+]] = kiln.tanh %[[Z1]] {kiln.checkpoint = 1 : i64}
// CHECK-NEXT: %[[H1:.+]] = kiln.add %[[T1]], %[[X]] {kiln.checkpoint = 1 : i64}
// Block 2's values, recomputed from h1.
// CHECK-NEXT: %[[RZ2:.+]] = kiln.matmul %[[H1]], %[[W2]] {kiln.recomputed}
// CHECK-NEXT: %[[RT2:.+]] = kiln.tanh %[[RZ2]] {kiln.recomputed}
// CHECK:      kiln.matmul %{{.+}}, %[[W2]] {transpose_b = true}
// CHECK:      %[[GW2:.+]] = kiln.matmul %[[H1]], %{{.+}} {transpose_a = true}
// Block 1's, recomputed from x, after block 2's adjoint.
// CHECK:      %[[RZ1:.+]] = kiln.matmul %[[X]], %[[W1]] {kiln.recomputed}
// CHECK-NEXT: %[[RT1:.+]] = kiln.tanh %[[RZ1]] {kiln.recomputed}
// CHECK:      %[[GW1:.+]] = kiln.matmul %[[X]], %{{.+}} {transpose_a = true}
// CHECK:      return %[[GW1]], %[[GW2]]
// STATS: (S) 4 kiln-recomputed-ops - checkpointed forward ops copied to be recomputed
func.func private @net(%x: tensor<4x8xf32>, %w1: tensor<8x8xf32>,
                       %w2: tensor<8x8xf32>) -> tensor<f32> {
  %z1 = kiln.matmul %x, %w1 {kiln.checkpoint = 1 : i64} : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %t1 = kiln.tanh %z1 {kiln.checkpoint = 1 : i64} : tensor<4x8xf32>
  %h1 = kiln.add %t1, %x {kiln.checkpoint = 1 : i64} : tensor<4x8xf32>
  %z2 = kiln.matmul %h1, %w2 {kiln.checkpoint = 2 : i64} : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %t2 = kiln.tanh %z2 {kiln.checkpoint = 2 : i64} : tensor<4x8xf32>
  %h2 = kiln.add %t2, %h1 {kiln.checkpoint = 2 : i64} : tensor<4x8xf32>
  %s = kiln.reduce_sum %h2, dims = [0, 1] : tensor<4x8xf32> -> tensor<f32>
  return %s : tensor<f32>
}
func.func @two_blocks(%x: tensor<4x8xf32>, %w1: tensor<8x8xf32>,
                      %w2: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
  %ct = kiln.constant dense<1.0> : tensor<f32>
  %g:2 = kiln.vjp @net(%x, %w1, %w2, %ct) wrt [1, 2]
      : (tensor<4x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<f32>)
      -> (tensor<8x8xf32>, tensor<8x8xf32>)
  return %g#0, %g#1 : tensor<8x8xf32>, tensor<8x8xf32>
}

// -----

// Without checkpoints, nothing is recomputed: the derivative reads the
// forward's tanh.
// CHECK-LABEL: func.func @plain
// CHECK:     %[[T:.+]] = kiln.tanh
// CHECK-NOT: kiln.recomputed
// CHECK:     kiln.mul %[[T]], %[[T]]
func.func private @f(%x: tensor<4xf32>) -> tensor<f32> {
  %t = kiln.tanh %x : tensor<4xf32>
  %s = kiln.reduce_sum %t, dims = [0] : tensor<4xf32> -> tensor<f32>
  return %s : tensor<f32>
}
func.func @plain(%x: tensor<4xf32>) -> tensor<4xf32> {
  %ct = kiln.constant dense<1.0> : tensor<f32>
  %g = kiln.vjp @f(%x, %ct) wrt [0] : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %g : tensor<4xf32>
}
