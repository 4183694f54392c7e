// RUN: kiln-opt %s -kiln-lower-to-linalg -canonicalize -split-input-file | FileCheck %s

// Fusion groups over a dynamic batch (issue 17) are one linalg.generic, as
// static ones are: the batch is the domain's dynamic dim, its size read
// from an input (tensor.dim) or a broadcast's size operand; a broadcast to
// the batch outside the group (groups take no size operands) is read
// through, its operand projected, and no longer materialized.

// A bias broadcast to the batch, added, then tanh: one nest.
// CHECK-LABEL: func.func @bias_tanh(
// CHECK-SAME: %[[X:[^:]+]]: tensor<?x8xf32>, %[[B:[^:]+]]: tensor<8xf32>)
// CHECK: %[[N:.+]] = tensor.dim %[[X]], %{{.+}} : tensor<?x8xf32>
// CHECK: %[[OUT:.+]] = bufferization.alloc_tensor(%[[N]]) : tensor<?x8xf32>
// CHECK: %[[R:.+]] = linalg.generic {{.*}} ins(%[[X]], %[[B]] : tensor<?x8xf32>, tensor<8xf32>) outs(%{{.+}} : tensor<?x8xf32>)
// CHECK: arith.addf
// CHECK: math.tanh
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
func.func @bias_tanh(%x: tensor<?x8xf32>, %b: tensor<8xf32>) -> tensor<?x8xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x8xf32>
  %bb = kiln.broadcast_in_dim %b sizes(%n), dims = [1] : tensor<8xf32> -> tensor<?x8xf32>
  %r = kiln.fusion_group %x, %bb : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32> {
  ^bb0(%a: tensor<?x8xf32>, %c: tensor<?x8xf32>):
    %s = kiln.add %a, %c : tensor<?x8xf32>
    %t = kiln.tanh %s : tensor<?x8xf32>
    kiln.yield %t : tensor<?x8xf32>
  }
  return %r : tensor<?x8xf32>
}

// -----

// Gates: slices along the static dim of a batch of rows (the LSTM cell's),
// a concat exit along the static dim, and a bias gradient (a reduction
// over the batch) as an epilogue, all in one kernel id.
// CHECK-LABEL: func.func @gates(
// CHECK-SAME: %[[G:[^:]+]]: tensor<?x8xf32>)
// CHECK: tensor.extract_slice %[[G]][0, 0] [%{{.+}}, 4] [1, 1] : tensor<?x8xf32> to tensor<?x4xf32>
// CHECK: tensor.extract_slice %[[G]][0, 4] [%{{.+}}, 4] [1, 1] : tensor<?x8xf32> to tensor<?x4xf32>
// CHECK: %[[DEST:.+]] = bufferization.alloc_tensor(%{{.+}}) : tensor<?x8xf32>
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel"]
// CHECK: arith.mulf
// CHECK: %[[FIRST:.+]] = tensor.insert_slice {{.+}} into %[[DEST]][0, 0] [%{{.+}}, 4] [1, 1]
// CHECK: tensor.insert_slice {{.+}} into %[[FIRST]][0, 4] [%{{.+}}, 4] [1, 1]
func.func @gates(%g: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %r = kiln.fusion_group %g : (tensor<?x8xf32>) -> tensor<?x8xf32> {
  ^bb0(%a: tensor<?x8xf32>):
    %i = kiln.slice %a, offsets = [0, 0], sizes = [-1, 4] : tensor<?x8xf32> -> tensor<?x4xf32>
    %f = kiln.slice %a, offsets = [0, 4], sizes = [-1, 4] : tensor<?x8xf32> -> tensor<?x4xf32>
    %p = kiln.mul %i, %f : tensor<?x4xf32>
    %q = kiln.sigmoid %f : tensor<?x4xf32>
    %c = kiln.concat %p, %q dim = 1 : tensor<?x4xf32>, tensor<?x4xf32> -> tensor<?x8xf32>
    kiln.yield %c : tensor<?x8xf32>
  }
  return %r : tensor<?x8xf32>
}

// -----

// A bias gradient: the rows' sum over the dynamic batch, with the
// elementwise work before it, one generic reducing the batch dim.
// CHECK-LABEL: func.func @bias_grad(
// CHECK: linalg.fill
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "reduction"]
// CHECK-SAME: ins(%{{.+}} : tensor<?x8xf32>) outs(%{{.+}} : tensor<8xf32>)
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK-NOT: linalg.generic
func.func @bias_grad(%dy: tensor<?x8xf32>) -> tensor<8xf32> {
  %r = kiln.fusion_group %dy : (tensor<?x8xf32>) -> tensor<8xf32> {
  ^bb0(%a: tensor<?x8xf32>):
    %sq = kiln.mul %a, %a : tensor<?x8xf32>
    %s = kiln.reduce_sum %sq, dims = [0] : tensor<?x8xf32> -> tensor<8xf32>
    kiln.yield %s : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}
