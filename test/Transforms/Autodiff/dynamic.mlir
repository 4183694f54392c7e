// Gradients of programs with dynamic dims: what a rule broadcasts or fills
// takes its dynamic sizes from the primal value it is shaped like
// (tensor.dim), and sizes themselves carry no derivative.
// RUN: kiln-opt %s -kiln-autodiff -canonicalize -cse -split-input-file | FileCheck %s

// The cotangent of a reduction over the dynamic dim is broadcast back to
// the operand's shape, its rows counted by tensor.dim of the operand.
// CHECK-LABEL: func.func @sum_rows_grad
// CHECK-SAME: (%[[X:.+]]: tensor<?x8xf32>, %[[CT:.+]]: tensor<8xf32>)
// CHECK: %[[N:.+]] = tensor.dim %[[X]], %{{.+}} : tensor<?x8xf32>
// CHECK: %[[B:.+]] = kiln.broadcast_in_dim %[[CT]] sizes(%[[N]]), dims = [1] : tensor<8xf32> -> tensor<?x8xf32>
// CHECK: return %[[B]]
func.func private @sum_rows(%x: tensor<?x8xf32>) -> tensor<8xf32> {
  %s = kiln.reduce_sum %x, dims = [0] : tensor<?x8xf32> -> tensor<8xf32>
  return %s : tensor<8xf32>
}
func.func @sum_rows_grad(%x: tensor<?x8xf32>, %ct: tensor<8xf32>) -> tensor<?x8xf32> {
  %g = kiln.vjp @sum_rows(%x, %ct) wrt [0] : (tensor<?x8xf32>, tensor<8xf32>) -> tensor<?x8xf32>
  return %g : tensor<?x8xf32>
}

// -----

// A bias broadcast to the batch (its size from tensor.dim, which has no
// derivative): the bias's gradient sums the rows; an argument no output
// reads gets zeros of its dynamic shape (a broadcast scalar).
// CHECK-LABEL: func.func @bias_grad
// CHECK-SAME: (%[[X:.+]]: tensor<?x4xf32>, %[[B:.+]]: tensor<4xf32>, %[[U:.+]]: tensor<?xf32>, %[[CT:.+]]: tensor<?x4xf32>)
// CHECK-DAG: %[[ZERO:.+]] = kiln.constant dense<0.000000e+00> : tensor<f32>
// CHECK-DAG: %[[DB:.+]] = kiln.reduce_sum %{{.+}}, dims = [0] : tensor<?x4xf32> -> tensor<4xf32>
// CHECK-DAG: %[[M:.+]] = tensor.dim %[[U]], %{{.+}} : tensor<?xf32>
// CHECK-DAG: %[[DU:.+]] = kiln.broadcast_in_dim %[[ZERO]] sizes(%[[M]]), dims = [] : tensor<f32> -> tensor<?xf32>
// CHECK: return %{{.+}}, %[[DB]], %[[DU]] : tensor<?x4xf32>, tensor<4xf32>, tensor<?xf32>
func.func private @bias(%x: tensor<?x4xf32>, %b: tensor<4xf32>, %unused: tensor<?xf32>) -> tensor<?x4xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x4xf32>
  %bb = kiln.broadcast_in_dim %b sizes(%n), dims = [1] : tensor<4xf32> -> tensor<?x4xf32>
  %y = kiln.add %x, %bb : tensor<?x4xf32>
  %t = kiln.tanh %y : tensor<?x4xf32>
  return %t : tensor<?x4xf32>
}
func.func @bias_grad(%x: tensor<?x4xf32>, %b: tensor<4xf32>, %u: tensor<?xf32>, %ct: tensor<?x4xf32>)
    -> (tensor<?x4xf32>, tensor<4xf32>, tensor<?xf32>) {
  %g:3 = kiln.vjp @bias(%x, %b, %u, %ct) wrt [0, 1, 2]
      : (tensor<?x4xf32>, tensor<4xf32>, tensor<?xf32>, tensor<?x4xf32>)
      -> (tensor<?x4xf32>, tensor<4xf32>, tensor<?xf32>)
  return %g#0, %g#1, %g#2 : tensor<?x4xf32>, tensor<4xf32>, tensor<?xf32>
}

// -----

// A slice of part of a dynamic dim: its gradient is the cotangent padded
// with zeros before it (static) and after it, as many rows as the primal
// has beyond the slice's end, counted at run time.
// CHECK-LABEL: func.func @rows_grad
// CHECK-SAME: (%[[X:.+]]: tensor<?x4xf32>, %[[CT:.+]]: tensor<2x4xf32>)
// CHECK-DAG: %[[C3:.+]] = arith.constant 3 : index
// CHECK-DAG: %[[ZERO:.+]] = kiln.constant dense<0.000000e+00> : tensor<f32>
// CHECK-DAG: %[[BEFORE:.+]] = kiln.constant dense<0.000000e+00> : tensor<1x4xf32>
// CHECK-DAG: %[[N:.+]] = tensor.dim %[[X]], %{{.+}} : tensor<?x4xf32>
// CHECK: %[[M:.+]] = arith.subi %[[N]], %[[C3]] : index
// CHECK: %[[AFTER:.+]] = kiln.broadcast_in_dim %[[ZERO]] sizes(%[[M]]), dims = [] : tensor<f32> -> tensor<?x4xf32>
// CHECK: %[[G:.+]] = kiln.concat %[[BEFORE]], %[[CT]], %[[AFTER]] dim = 0 : tensor<1x4xf32>, tensor<2x4xf32>, tensor<?x4xf32> -> tensor<?x4xf32>
// CHECK: return %[[G]]
func.func private @rows(%x: tensor<?x4xf32>) -> tensor<2x4xf32> {
  %h = kiln.slice %x, offsets = [1, 0], sizes = [2, 4] : tensor<?x4xf32> -> tensor<2x4xf32>
  return %h : tensor<2x4xf32>
}
func.func @rows_grad(%x: tensor<?x4xf32>, %ct: tensor<2x4xf32>) -> tensor<?x4xf32> {
  %g = kiln.vjp @rows(%x, %ct) wrt [0] : (tensor<?x4xf32>, tensor<2x4xf32>) -> tensor<?x4xf32>
  return %g : tensor<?x4xf32>
}
