// RUN: kiln-opt %s -kiln-fuse -split-input-file | FileCheck %s

// A chain of elementwise ops on arguments and splat constants (the loss
// scale at the start of a backward) read through a broadcast is computed
// in the broadcast's shape, inside the group that reads it: one group, not
// a scalar kernel and a consumer kernel.
// CHECK-LABEL: func @loss_scale
// CHECK-SAME: (%[[DL:.+]]: tensor<f32>, %[[X:.+]]: tensor<4x8xf32>)
// CHECK: %[[G:.+]] = kiln.fusion_group %[[DL]], %{{.+}}, %[[X]]
// CHECK: kiln.broadcast_in_dim %{{.+}}, dims = [] : tensor<f32> -> tensor<4x8xf32>
// CHECK: kiln.broadcast_in_dim %{{.+}}, dims = [] : tensor<f32> -> tensor<4x8xf32>
// CHECK: kiln.mul %{{.+}}, %{{.+}} : tensor<4x8xf32>
// CHECK: kiln.neg %{{.+}} : tensor<4x8xf32>
// CHECK: kiln.mul %{{.+}}, %{{.+}} : tensor<4x8xf32>
// CHECK-NOT: = kiln.fusion_group
// CHECK: return %[[G]]
func.func @loss_scale(%dl: tensor<f32>, %x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %inv = kiln.constant dense<0.25> : tensor<f32>
  %s = kiln.mul %dl, %inv : tensor<f32>
  %n = kiln.neg %s : tensor<f32>
  %b = kiln.broadcast_in_dim %n, dims = [] : tensor<f32> -> tensor<4x8xf32>
  %y = kiln.mul %b, %x : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// Through a broadcast of a broadcast: the dims compose.
// CHECK-LABEL: func @composed
// CHECK: kiln.fusion_group
// CHECK: kiln.broadcast_in_dim %{{.+}}, dims = [0] : tensor<4xf32> -> tensor<4x8xf32>
// CHECK: kiln.exp %{{.+}} : tensor<4x8xf32>
// CHECK-NOT: = kiln.fusion_group
func.func @composed(%a: tensor<4xf32>, %x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = kiln.exp %a : tensor<4xf32>
  %b = kiln.broadcast_in_dim %e, dims = [0] : tensor<4xf32> -> tensor<4x8xf32>
  %y = kiln.add %b, %x : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// A value a reduction computes is a row value, kept once per row by the
// row group rather than recomputed per element: it stays on the rows.
// CHECK-LABEL: func @row_value
// CHECK: kiln.fusion_group
// CHECK: kiln.reduce_sum
// CHECK: kiln.rsqrt %{{.+}} : tensor<4xf32>
func.func @row_value(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %s = kiln.reduce_sum %x, dims = [1] : tensor<4x8xf32> -> tensor<4xf32>
  %r = kiln.rsqrt %s : tensor<4xf32>
  %b = kiln.broadcast_in_dim %r, dims = [0] : tensor<4xf32> -> tensor<4x8xf32>
  %y = kiln.mul %x, %b : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// A chain also read other than through a broadcast stays where it is (and
// is computed again in the broadcast's group).
// CHECK-LABEL: func @also_returned
// CHECK: %[[S:.+]] = kiln.fusion_group
// CHECK: kiln.exp %{{.+}} : tensor<4xf32>
// CHECK: %[[Y:.+]] = kiln.fusion_group
// CHECK: kiln.exp %{{.+}} : tensor<4x8xf32>
// CHECK: return %[[S]], %[[Y]]
func.func @also_returned(%a: tensor<4xf32>, %x: tensor<4x8xf32>) -> (tensor<4xf32>, tensor<4x8xf32>) {
  %e = kiln.exp %a : tensor<4xf32>
  %b = kiln.broadcast_in_dim %e, dims = [0] : tensor<4xf32> -> tensor<4x8xf32>
  %y = kiln.add %b, %x : tensor<4x8xf32>
  return %e, %y : tensor<4xf32>, tensor<4x8xf32>
}
