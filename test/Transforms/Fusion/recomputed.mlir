// RUN: kiln-opt %s -kiln-fuse -split-input-file | FileCheck %s

// The copies -kiln-autodiff makes to recompute a value for the backward
// (kiln.recomputed) never join an op that came before them: fused with the
// forward op they read, they would run in the forward and be kept to the
// backward. Here the recomputed tanh reads the forward's exp; it stays out
// of the forward's group, in one group with the recomputed sigmoid and the
// backward's mul that reads it, after the forward.
// CHECK-LABEL: func @recomputed
// CHECK: %[[F:.+]]:2 = kiln.fusion_group
// CHECK: kiln.exp
// CHECK-NOT: kiln.recomputed
// CHECK: kiln.tanh
// CHECK-NOT: kiln.recomputed
// CHECK: kiln.yield
// CHECK: kiln.matmul
// CHECK: kiln.fusion_group %[[F]]#0
// CHECK-NEXT: ^bb0
// CHECK-NEXT: kiln.tanh %{{.+}} {kiln.recomputed}
// CHECK-NEXT: kiln.sigmoid %{{.+}} {kiln.recomputed}
// CHECK-NEXT: kiln.mul
// CHECK-NEXT: kiln.yield
func.func @recomputed(%x: tensor<4x4xf32>, %y: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %a = kiln.exp %x : tensor<4x4xf32>
  %s = kiln.tanh %a : tensor<4x4xf32>
  %m = kiln.matmul %s, %y : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %r = kiln.tanh %a {kiln.recomputed} : tensor<4x4xf32>
  %q = kiln.sigmoid %r {kiln.recomputed} : tensor<4x4xf32>
  %g = kiln.mul %q, %m : tensor<4x4xf32>
  return %s, %g : tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// The block keeps its order where operands allow. The exp and the mul
// are one group, which sits after its last member's operands (the
// reduction); the product reads it; the recomputed negation, whose operand
// was ready from the start, stays after them all (upstream's topological
// sort moved every op that was ready ahead of those that waited).
// CHECK-LABEL: func @keeps_order
// CHECK: kiln.reduce_sum
// CHECK: kiln.fusion_group
// CHECK: kiln.exp
// CHECK: kiln.mul
// CHECK: kiln.matmul
// CHECK: kiln.neg %{{.+}} {kiln.recomputed}
// CHECK: return
func.func @keeps_order(%x: tensor<4x4xf32>, %y: tensor<4x4xf32>, %z: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) {
  %a = kiln.exp %x : tensor<4x4xf32>
  %s = kiln.reduce_sum %y, dims = [0, 1] : tensor<4x4xf32> -> tensor<f32>
  %m = kiln.matmul %a, %y : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %n = kiln.neg %z {kiln.recomputed} : tensor<4x4xf32>
  %b = kiln.broadcast_in_dim %s, dims = [] : tensor<f32> -> tensor<4x4xf32>
  %c = kiln.mul %a, %b : tensor<4x4xf32>
  return %c, %m, %n : tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// A backward op after a gap (kiln.after_gap: it reads the product) may
// share a group with a recomputation placed after it: the group runs after
// the product all the same. Here the recomputed sigmoid joins the group of
// the backward's mul, which comes before it, and the mark is removed.
// Without the mark (@before_recomputed_unmarked) the mul might run in the
// forward, and the recomputation gets a group of its own.
// CHECK-LABEL: func @after_gap
// CHECK: kiln.matmul
// CHECK: kiln.fusion_group
// CHECK-NEXT: ^bb0
// CHECK-NEXT: kiln.mul %{{.+}}, %{{.+}} : tensor<4x4xf32>
// CHECK-NEXT: kiln.sigmoid %{{.+}} {kiln.recomputed}
// CHECK-NEXT: kiln.mul
// CHECK-NEXT: kiln.yield
// CHECK-NOT: kiln.fusion_group
// CHECK-NOT: kiln.after_gap
// CHECK: return
func.func @after_gap(%x: tensor<4x4xf32>, %y: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %m = kiln.matmul %x, %y : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %d = kiln.mul %m, %m {kiln.after_gap} : tensor<4x4xf32>
  %r = kiln.sigmoid %x {kiln.recomputed} : tensor<4x4xf32>
  %g = kiln.mul %d, %r {kiln.after_gap} : tensor<4x4xf32>
  return %g : tensor<4x4xf32>
}

// CHECK-LABEL: func @before_recomputed_unmarked
// CHECK: kiln.matmul
// CHECK: kiln.fusion_group
// CHECK-NEXT: ^bb0
// CHECK-NEXT: kiln.sigmoid %{{.+}} {kiln.recomputed}
// CHECK-NEXT: kiln.yield
// CHECK: kiln.fusion_group
// CHECK-NEXT: ^bb0
// CHECK-NEXT: kiln.mul
// CHECK-NEXT: kiln.mul
// CHECK-NEXT: kiln.yield
// CHECK: return
func.func @before_recomputed_unmarked(%x: tensor<4x4xf32>, %y: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %m = kiln.matmul %x, %y : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %d = kiln.mul %m, %m : tensor<4x4xf32>
  %r = kiln.sigmoid %x {kiln.recomputed} : tensor<4x4xf32>
  %g = kiln.mul %d, %r {kiln.after_gap} : tensor<4x4xf32>
  return %g : tensor<4x4xf32>
}
