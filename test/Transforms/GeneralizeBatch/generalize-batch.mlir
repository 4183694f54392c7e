// RUN: kiln-opt %s -split-input-file -kiln-generalize-batch -verify-diagnostics | FileCheck %s

// The batch (dim 0 of %x) follows into the broadcast's new dim, the splat
// constant and %y (forced by the add); the reduction over it is static.
// CHECK-LABEL: func.func @bias(
// CHECK-SAME: %[[X:.*]]: tensor<?x8xf32>, %[[B:.*]]: tensor<8xf32>, %[[Y:.*]]: tensor<?x8xf32>) -> (tensor<?x8xf32>, tensor<8xf32>)
// CHECK: %[[N:.*]] = tensor.dim %[[X]], %c0 : tensor<?x8xf32>
// CHECK: kiln.broadcast_in_dim %[[B]] sizes(%[[N]]), dims = [1] : tensor<8xf32> -> tensor<?x8xf32>
// CHECK: %[[TWO:.*]] = kiln.constant dense<2.000000e+00> : tensor<f32>
// CHECK: kiln.broadcast_in_dim %[[TWO]] sizes(%[[N]]), dims = [] : tensor<f32> -> tensor<?x8xf32>
// CHECK: kiln.sub %{{.*}}, %[[Y]] : tensor<?x8xf32>
// CHECK: kiln.reduce_sum %{{.*}}, dims = [0] : tensor<?x8xf32> -> tensor<8xf32>
func.func @bias(%x: tensor<4x8xf32>, %b: tensor<8xf32>, %y: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<8xf32>) {
  %bb = kiln.broadcast_in_dim %b, dims = [1] : tensor<8xf32> -> tensor<4x8xf32>
  %c = kiln.constant dense<2.0> : tensor<4x8xf32>
  %y1 = kiln.add %x, %bb : tensor<4x8xf32>
  %y2 = kiln.mul %y1, %c : tensor<4x8xf32>
  %y3 = kiln.sub %y2, %y : tensor<4x8xf32>
  %r = kiln.reduce_sum %y3, dims = [0] : tensor<4x8xf32> -> tensor<8xf32>
  return %y3, %r : tensor<4x8xf32>, tensor<8xf32>
}

// -----

// A vjp's callee is cloned with the batch dynamic; its cotangent (a splat)
// takes the batch size. The static callee, unused, goes.
// CHECK-NOT: func.func private @f(
// CHECK-LABEL: func.func private @f_batch0(
// CHECK-SAME: tensor<?x8xf32>, %{{.*}}: tensor<8x3xf32>) -> tensor<?x3xf32>
// CHECK: kiln.matmul %{{.*}}, %{{.*}} : tensor<?x8xf32>, tensor<8x3xf32> -> tensor<?x3xf32>
// CHECK-LABEL: func.func @grad(
// CHECK: kiln.vjp @f_batch0(%{{.*}}, %{{.*}}, %{{.*}}) wrt [0, 1] : (tensor<?x8xf32>, tensor<8x3xf32>, tensor<?x3xf32>) -> (tensor<?x8xf32>, tensor<8x3xf32>)
func.func private @f(%x: tensor<4x8xf32>, %w: tensor<8x3xf32>) -> tensor<4x3xf32> {
  %y = kiln.matmul %x, %w : tensor<4x8xf32>, tensor<8x3xf32> -> tensor<4x3xf32>
  %t = kiln.tanh %y : tensor<4x3xf32>
  return %t : tensor<4x3xf32>
}
func.func @grad(%x: tensor<4x8xf32>, %w: tensor<8x3xf32>) -> (tensor<4x8xf32>, tensor<8x3xf32>) {
  %ct = kiln.constant dense<1.0> : tensor<4x3xf32>
  %g:2 = kiln.vjp @f(%x, %w, %ct) wrt [0, 1] : (tensor<4x8xf32>, tensor<8x3xf32>, tensor<4x3xf32>) -> (tensor<4x8xf32>, tensor<8x3xf32>)
  return %g#0, %g#1 : tensor<4x8xf32>, tensor<8x3xf32>
}

// -----

// A square matmul: the batch of %w is the contraction, so %x's dim 1
// follows it; the add then forces %x's dim 0 too.
// CHECK-LABEL: func.func @square(
// CHECK-SAME: tensor<?x4xf32>, %{{.*}}: tensor<?x?xf32>) -> tensor<?x4xf32>
func.func @square(%w: tensor<4x4xf32>, %x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %y = kiln.matmul %x, %w : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %z = kiln.add %y, %w : tensor<4x4xf32>
  return %z : tensor<4x4xf32>
}

// -----

// In a fusion group, a constant and a broadcast that take the batch size
// are built outside it and become inputs (a group reads no sizes).
// CHECK-LABEL: func.func @group(
// CHECK: %[[N:.*]] = tensor.dim
// CHECK: %[[HALF:.*]] = kiln.broadcast_in_dim %{{.*}} sizes(%[[N]]), dims = [] : tensor<f32> -> tensor<?x7xf32>
// CHECK: %[[BC:.*]] = kiln.broadcast_in_dim %{{.*}} sizes(%[[N]]), dims = [1] : tensor<7xf32> -> tensor<?x7xf32>
// CHECK: kiln.fusion_group %{{.*}}, %{{.*}}, %[[HALF]], %[[BC]] : (tensor<?x7xf32>, tensor<7xf32>, tensor<?x7xf32>, tensor<?x7xf32>) -> tensor<?x7xf32>
// CHECK-NOT: kiln.constant
// CHECK: kiln.yield
func.func @group(%x: tensor<3x7xf32>, %b: tensor<7xf32>) -> tensor<3x7xf32> {
  %r = kiln.fusion_group %x, %b : (tensor<3x7xf32>, tensor<7xf32>) -> tensor<3x7xf32> {
  ^bb0(%a: tensor<3x7xf32>, %c: tensor<7xf32>):
    %half = kiln.constant dense<0.5> : tensor<3x7xf32>
    %bc = kiln.broadcast_in_dim %c, dims = [1] : tensor<7xf32> -> tensor<3x7xf32>
    %m = kiln.mul %a, %half : tensor<3x7xf32>
    %s = kiln.add %m, %bc : tensor<3x7xf32>
    kiln.yield %s : tensor<3x7xf32>
  }
  return %r : tensor<3x7xf32>
}

// -----

// Slices: one of part of the batch is static; one that takes it whole
// keeps it (size -1). A reshape that merges the batch with a static dim
// has one dynamic dim; a transpose moves it.
// CHECK-LABEL: func.func @layout(
// CHECK: kiln.slice %{{.*}}, offsets = [1, 0], sizes = [2, 3] : tensor<?x6xf32> -> tensor<2x3xf32>
// CHECK: kiln.slice %{{.*}}, offsets = [0, 3], sizes = [-1, 3] : tensor<?x6xf32> -> tensor<?x3xf32>
// CHECK: kiln.reshape %{{.*}} : tensor<?x6xf32> -> tensor<?xf32>
// CHECK: kiln.transpose %{{.*}}, perm = [1, 0] : tensor<?x6xf32> -> tensor<6x?xf32>
func.func @layout(%x: tensor<5x6xf32>) -> (tensor<2x3xf32>, tensor<5x3xf32>, tensor<30xf32>, tensor<6x5xf32>) {
  %a = kiln.slice %x, offsets = [1, 0], sizes = [2, 3] : tensor<5x6xf32> -> tensor<2x3xf32>
  %b = kiln.slice %x, offsets = [0, 3], sizes = [5, 3] : tensor<5x6xf32> -> tensor<5x3xf32>
  %c = kiln.reshape %x : tensor<5x6xf32> -> tensor<30xf32>
  %d = kiln.transpose %x, perm = [1, 0] : tensor<5x6xf32> -> tensor<6x5xf32>
  return %a, %b, %c, %d : tensor<2x3xf32>, tensor<5x3xf32>, tensor<30xf32>, tensor<6x5xf32>
}

// -----

func.func @not_a_splat(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @below {{cannot generalize the batch: a constant that is not a splat meets the batch}}
  %c = kiln.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %y = kiln.add %x, %c : tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

func.func @split(%x: tensor<6x4xf32>) -> tensor<2x12xf32> {
  // expected-error @below {{cannot generalize the batch of this reshape: it splits or merges the batch}}
  %y = kiln.reshape %x : tensor<6x4xf32> -> tensor<2x12xf32>
  return %y : tensor<2x12xf32>
}

// -----

func.func @part_meets_batch(%x: tensor<4x3xf32>, %w: tensor<8x3xf32>) -> tensor<4x3xf32> {
  // expected-error @below {{cannot generalize the batch: a slice of part of dim 0 meets the batch}}
  %p = kiln.slice %w, offsets = [0, 0], sizes = [4, 3] : tensor<8x3xf32> -> tensor<4x3xf32>
  %y = kiln.add %x, %p : tensor<4x3xf32>
  return %y : tensor<4x3xf32>
}

// -----

func.func @other_size(%x: tensor<4x3xf32>, %w: tensor<12xf32>) -> tensor<4x3xf32> {
  // expected-error @below {{cannot generalize the batch of this reshape: no operand dim of the batch's size}}
  %r = kiln.reshape %w : tensor<12xf32> -> tensor<4x3xf32>
  %y = kiln.add %x, %r : tensor<4x3xf32>
  return %y : tensor<4x3xf32>
}

// -----

// expected-error @below {{cannot generalize the batch: no argument has a dim}}
func.func @scalar(%x: tensor<f32>) -> tensor<f32> {
  return %x : tensor<f32>
}
