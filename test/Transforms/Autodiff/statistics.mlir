// The statistics of -kiln-autodiff over two vjps, and the IR they count.
// RUN: kiln-opt %s -kiln-autodiff | FileCheck %s
// RUN: kiln-opt %s -kiln-autodiff -mlir-pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS

// Totals over @grad_x and @grad_b:
//  kiln-vjps-expanded: 2.
//  kiln-adjoint-ops: 5 in @grad_x (1.0 constant, y * y, sub, mul, matmul)
//    + 1 in @grad_b (reduce_sum) = 6.
//  kiln-pruned-edges: @grad_x: add <- broadcast, broadcast <- b,
//    matmul <- w (3); @grad_b: add <- exp, exp <- x (2) = 5.
//  kiln-pruned-ops: @grad_x needs its whole forward (0); @grad_b needs none
//    of exp, broadcast_in_dim, add (3) = 3.
// STATS: KilnAutodiff
// STATS-NEXT: (S) 6 kiln-adjoint-ops - ops created by the reverse sweeps
// STATS-NEXT: (S) 5 kiln-pruned-edges - operand adjoints not built because the operand is inactive
// STATS-NEXT: (S) 3 kiln-pruned-ops - forward ops not emitted because no adjoint needs them
// STATS-NEXT: (S) 0 kiln-recomputed-ops - checkpointed forward ops copied to be recomputed
// STATS-NEXT: (S) 0 kiln-rematerialized-ops - cheap forward ops copied to be recomputed (remat=auto)
// STATS-NEXT: (S) 2 kiln-vjps-expanded - kiln.vjp ops expanded

func.func private @layer(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %b: tensor<16xf32>) -> tensor<4x16xf32> {
  %m = kiln.matmul %x, %w : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  %bb = kiln.broadcast_in_dim %b, dims = [1] : tensor<16xf32> -> tensor<4x16xf32>
  %a = kiln.add %m, %bb : tensor<4x16xf32>
  %t = kiln.tanh %a : tensor<4x16xf32>
  return %t : tensor<4x16xf32>
}

// CHECK-LABEL: func.func @grad_x(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x8xf32>, %[[W:[^:]+]]: tensor<8x16xf32>, %[[B:[^:]+]]: tensor<16xf32>, %[[CT:[^:]+]]: tensor<4x16xf32>)
// CHECK-NEXT: %[[M:.+]] = kiln.matmul %[[X]], %[[W]] : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
// CHECK-NEXT: %[[BB:.+]] = kiln.broadcast_in_dim %[[B]], dims = [1] : tensor<16xf32> -> tensor<4x16xf32>
// CHECK-NEXT: %[[A:.+]] = kiln.add %[[M]], %[[BB]] : tensor<4x16xf32>
// CHECK-NEXT: %[[Y:.+]] = kiln.tanh %[[A]] : tensor<4x16xf32>
// CHECK-NEXT: %[[ONE:.+]] = kiln.constant dense<1.000000e+00> : tensor<4x16xf32>
// CHECK-NEXT: %[[YY:.+]] = kiln.mul %[[Y]], %[[Y]] : tensor<4x16xf32>
// CHECK-NEXT: %[[D:.+]] = kiln.sub %[[ONE]], %[[YY]] : tensor<4x16xf32>
// CHECK-NEXT: %[[DA:.+]] = kiln.mul %[[CT]], %[[D]] : tensor<4x16xf32>
// CHECK-NEXT: %[[G:.+]] = kiln.matmul %[[DA]], %[[W]] {transpose_b = true} : tensor<4x16xf32>, tensor<8x16xf32> -> tensor<4x8xf32>
// CHECK-NEXT: return %[[G]] : tensor<4x8xf32>
func.func @grad_x(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %b: tensor<16xf32>, %ct: tensor<4x16xf32>) -> tensor<4x8xf32> {
  %g = kiln.vjp @layer(%x, %w, %b, %ct) wrt [0] : (tensor<4x8xf32>, tensor<8x16xf32>, tensor<16xf32>, tensor<4x16xf32>) -> tensor<4x8xf32>
  return %g : tensor<4x8xf32>
}

func.func private @shift(%x: tensor<4x16xf32>, %b: tensor<16xf32>) -> tensor<4x16xf32> {
  %e = kiln.exp %x : tensor<4x16xf32>
  %bb = kiln.broadcast_in_dim %b, dims = [1] : tensor<16xf32> -> tensor<4x16xf32>
  %s = kiln.add %e, %bb : tensor<4x16xf32>
  return %s : tensor<4x16xf32>
}

// CHECK-LABEL: func.func @grad_b(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x16xf32>, %[[B:[^:]+]]: tensor<16xf32>, %[[CT:[^:]+]]: tensor<4x16xf32>)
// CHECK-NEXT: %[[G:.+]] = kiln.reduce_sum %[[CT]], dims = [0] : tensor<4x16xf32> -> tensor<16xf32>
// CHECK-NEXT: return %[[G]] : tensor<16xf32>
func.func @grad_b(%x: tensor<4x16xf32>, %b: tensor<16xf32>, %ct: tensor<4x16xf32>) -> tensor<16xf32> {
  %g = kiln.vjp @shift(%x, %b, %ct) wrt [1] : (tensor<4x16xf32>, tensor<16xf32>, tensor<4x16xf32>) -> tensor<16xf32>
  return %g : tensor<16xf32>
}
