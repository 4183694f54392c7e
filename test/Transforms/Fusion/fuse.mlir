// RUN: kiln-opt %s -kiln-fuse -split-input-file | FileCheck %s
// RUN: kiln-opt %s -kiln-fuse -split-input-file -mlir-pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS

// The LSTM cell's pointwise part is one group: the four gate slices of the
// gates tensor are entry nodes, and h' and c' are its two outputs.
// CHECK-LABEL: func @lstm_forward
// CHECK: %[[G:.+]]:2 = kiln.fusion_group %arg0, %arg1 : (tensor<4x32xf32>, tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK-COUNT-4: kiln.slice
// CHECK: kiln.yield
// CHECK-NOT: kiln.fusion_group
// CHECK: return %[[G]]#1, %[[G]]#0
// STATS: KilnFuse
// STATS: kiln-fusion-groups
func.func @lstm_forward(%gates: tensor<4x32xf32>, %c: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %i0 = kiln.slice %gates, offsets = [0, 0], sizes = [4, 8] : tensor<4x32xf32> -> tensor<4x8xf32>
  %f0 = kiln.slice %gates, offsets = [0, 8], sizes = [4, 8] : tensor<4x32xf32> -> tensor<4x8xf32>
  %g0 = kiln.slice %gates, offsets = [0, 16], sizes = [4, 8] : tensor<4x32xf32> -> tensor<4x8xf32>
  %o0 = kiln.slice %gates, offsets = [0, 24], sizes = [4, 8] : tensor<4x32xf32> -> tensor<4x8xf32>
  %i = kiln.sigmoid %i0 : tensor<4x8xf32>
  %f = kiln.sigmoid %f0 : tensor<4x8xf32>
  %g = kiln.tanh %g0 : tensor<4x8xf32>
  %o = kiln.sigmoid %o0 : tensor<4x8xf32>
  %fc = kiln.mul %f, %c : tensor<4x8xf32>
  %ig = kiln.mul %i, %g : tensor<4x8xf32>
  %c2 = kiln.add %fc, %ig : tensor<4x8xf32>
  %tc = kiln.tanh %c2 : tensor<4x8xf32>
  %h2 = kiln.mul %o, %tc : tensor<4x8xf32>
  return %h2, %c2 : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// chunk(x @ W + b): the bias add is evaluated at the sliced indices, so the
// add, its broadcast entry, the slices and the gate math are one group.
// CHECK-LABEL: func @chunk_of_computed
// CHECK: kiln.matmul
// CHECK: kiln.fusion_group
// CHECK: kiln.broadcast_in_dim
// CHECK: kiln.add
// CHECK: kiln.slice
// CHECK: kiln.slice
// CHECK: kiln.yield
// CHECK-NOT: kiln.fusion_group
// CHECK: return
func.func @chunk_of_computed(%x: tensor<4x16xf32>, %w: tensor<16x16xf32>, %b: tensor<16xf32>) -> tensor<4x8xf32> {
  %m = kiln.matmul %x, %w : tensor<4x16xf32>, tensor<16x16xf32> -> tensor<4x16xf32>
  %bb = kiln.broadcast_in_dim %b, dims = [1] : tensor<16xf32> -> tensor<4x16xf32>
  %s = kiln.add %m, %bb : tensor<4x16xf32>
  %lo = kiln.slice %s, offsets = [0, 0], sizes = [4, 8] : tensor<4x16xf32> -> tensor<4x8xf32>
  %hi = kiln.slice %s, offsets = [0, 8], sizes = [4, 8] : tensor<4x16xf32> -> tensor<4x8xf32>
  %a = kiln.sigmoid %lo : tensor<4x8xf32>
  %t = kiln.tanh %hi : tensor<4x8xf32>
  %r = kiln.mul %a, %t : tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// A concat whose result is not read in the group is its exit node.
// CHECK-LABEL: func @concat_exit
// CHECK: %[[G:.+]] = kiln.fusion_group
// CHECK: %[[K:.+]] = kiln.concat
// CHECK-NEXT: kiln.yield %[[K]] : tensor<4x24xf32>
// CHECK: return %[[G]]
func.func @concat_exit(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x24xf32> {
  %x = kiln.tanh %a : tensor<4x8xf32>
  %y = kiln.mul %a, %b : tensor<4x8xf32>
  %z = kiln.exp %b : tensor<4x8xf32>
  %k = kiln.concat %x, %y, %z dim = 1 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x24xf32>
  return %k : tensor<4x24xf32>
}

// -----

// A concat of unequal parts is an exit as well, on any dim: each part's
// producers join its group (they become a loop nest of their own shape).
// CHECK-LABEL: func @concat_exit_unequal
// CHECK: %[[G:.+]] = kiln.fusion_group %{{.+}}, %{{.+}}, %{{.+}} :
// CHECK: kiln.tanh
// CHECK: kiln.mul
// CHECK: kiln.exp
// CHECK: %[[K:.+]] = kiln.concat {{.*}} dim = 0 : tensor<4x8xf32>, tensor<2x8xf32>, tensor<1x8xf32> -> tensor<7x8xf32>
// CHECK-NEXT: kiln.yield %[[K]] : tensor<7x8xf32>
// CHECK: %[[H:.+]] = kiln.fusion_group %{{.+}}, %{{.+}} :
// CHECK: kiln.neg
// CHECK: kiln.sigmoid
// CHECK: %[[J:.+]] = kiln.concat {{.*}} dim = 1 : tensor<4x3xf32>, tensor<4x5xf32> -> tensor<4x8xf32>
// CHECK-NEXT: kiln.yield %[[J]]
// CHECK: return %[[G]], %[[H]]
func.func @concat_exit_unequal(%a: tensor<4x8xf32>, %b: tensor<2x8xf32>, %c: tensor<1x8xf32>, %d: tensor<4x3xf32>, %e: tensor<4x5xf32>) -> (tensor<7x8xf32>, tensor<4x8xf32>) {
  %x = kiln.tanh %a : tensor<4x8xf32>
  %y = kiln.mul %b, %b : tensor<2x8xf32>
  %z = kiln.exp %c : tensor<1x8xf32>
  %k = kiln.concat %x, %y, %z dim = 0 : tensor<4x8xf32>, tensor<2x8xf32>, tensor<1x8xf32> -> tensor<7x8xf32>
  %u = kiln.neg %d : tensor<4x3xf32>
  %v = kiln.sigmoid %e : tensor<4x5xf32>
  %j = kiln.concat %u, %v dim = 1 : tensor<4x3xf32>, tensor<4x5xf32> -> tensor<4x8xf32>
  return %k, %j : tensor<7x8xf32>, tensor<4x8xf32>
}

// -----

// A producer also used outside its group is an extra output, not computed
// twice.
// CHECK-LABEL: func @multi_output
// CHECK: %[[G:.+]]:2 = kiln.fusion_group
// CHECK-COUNT-1: kiln.tanh
// CHECK: kiln.yield
// CHECK: kiln.matmul %[[G]]#{{[01]}}
func.func @multi_output(%a: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %t = kiln.tanh %a : tensor<4x4xf32>
  %s = kiln.mul %t, %t : tensor<4x4xf32>
  %m = kiln.matmul %t, %w : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  return %s, %m : tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// A reduction ends its group (bias gradient as an epilogue).
// CHECK-LABEL: func @reduction_epilogue
// CHECK: kiln.fusion_group
// CHECK: kiln.mul
// CHECK: kiln.reduce_sum
// CHECK: kiln.yield
// CHECK-NOT: kiln.fusion_group
// CHECK: return
func.func @reduction_epilogue(%a: tensor<8x4xf32>, %b: tensor<8x4xf32>) -> tensor<4xf32> {
  %m = kiln.mul %a, %b : tensor<8x4xf32>
  %r = kiln.reduce_sum %m, dims = [0] : tensor<8x4xf32> -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// A diamond through a matmul: merging %t's and %u's groups would create a
// cycle through the matmul, so they stay apart.
// CHECK-LABEL: func @diamond_through_matmul
// CHECK: %[[A:.+]] = kiln.fusion_group
// CHECK: kiln.tanh
// CHECK: kiln.yield
// CHECK: %[[M:.+]] = kiln.matmul %[[A]], %arg1
// CHECK: kiln.fusion_group %[[A]], %[[M]]
// CHECK: kiln.mul
func.func @diamond_through_matmul(%a: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %t = kiln.tanh %a : tensor<4x4xf32>
  %m = kiln.matmul %t, %w : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %u = kiln.mul %t, %m : tensor<4x4xf32>
  return %u : tensor<4x4xf32>
}

// -----

// An add that accumulates a matmul's product (read only there) is the
// matmul's epilogue (BLAS's beta = 1), not a group: a weight gradient summed
// over the steps of an unrolled network is a chain of them. An add of a
// product that is also read elsewhere is an ordinary group.
// CHECK-LABEL: func @matmul_epilogue
// CHECK: %[[M1:.+]] = kiln.matmul
// CHECK: %[[M2:.+]] = kiln.matmul
// CHECK: %[[S:.+]] = kiln.add %[[M1]], %[[M2]]
// CHECK: %[[M3:.+]] = kiln.matmul
// CHECK: %[[T:.+]] = kiln.add %[[S]], %[[M3]]
// CHECK: %[[M4:.+]] = kiln.matmul
// CHECK: kiln.fusion_group %[[T]], %[[M4]]
// CHECK: kiln.add
// CHECK: kiln.tanh
func.func @matmul_epilogue(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %m1 = kiln.matmul %a, %b : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %m2 = kiln.matmul %b, %a : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %s = kiln.add %m1, %m2 : tensor<4x4xf32>
  %m3 = kiln.matmul %a, %a : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %t = kiln.add %s, %m3 : tensor<4x4xf32>
  %m4 = kiln.matmul %b, %b : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %u = kiln.add %t, %m4 : tensor<4x4xf32>
  %v = kiln.tanh %u : tensor<4x4xf32>
  return %v, %m4 : tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// A broadcast read by two groups is duplicated into each (it is an
// indexing map, not work), instead of being one group's extra output that
// the other reads materialized; the bias of an unrolled RNN step does this.
// CHECK-LABEL: func @shared_broadcast
// CHECK: kiln.fusion_group %{{.+}}, %{{.+}} : (tensor<8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK: kiln.broadcast_in_dim
// CHECK: kiln.add
// CHECK: kiln.fusion_group %{{.+}}, %{{.+}} : (tensor<8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK: kiln.broadcast_in_dim
// CHECK: kiln.mul
func.func @shared_broadcast(%x: tensor<4x8xf32>, %row: tensor<8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %b = kiln.broadcast_in_dim %row, dims = [1] : tensor<8xf32> -> tensor<4x8xf32>
  %a = kiln.add %x, %b : tensor<4x8xf32>
  // The matmul keeps the two elementwise ops in separate groups.
  %m = kiln.matmul %a, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %y = kiln.mul %m, %b : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// An elementwise op that reads a group's output and feeds only a later
// group moves into that later group: it then reads %dh and %a there
// instead of its first group writing its product (fewer bytes). In program
// order it would join the tanh's group, which a matmul separates from the
// sigmoid's. At the last step of an unrolled loop that made the step's
// kernel differ from every other step's.
// CHECK-LABEL: func @sink_into_consumer
// CHECK: %[[A:.+]] = kiln.fusion_group %arg0 : (tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT: ^bb0
// CHECK-NEXT: kiln.tanh
// CHECK-NEXT: kiln.yield
// CHECK: %[[M:.+]] = kiln.matmul %[[A]]
// CHECK: kiln.fusion_group %arg2, %[[A]], %[[M]] :
// CHECK: kiln.mul
// CHECK: kiln.sigmoid
// CHECK: kiln.add
func.func @sink_into_consumer(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>, %dh: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %a = kiln.tanh %x : tensor<4x8xf32>
  %m = kiln.matmul %a, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %p = kiln.mul %dh, %a : tensor<4x8xf32>
  %s = kiln.sigmoid %m : tensor<4x8xf32>
  %r = kiln.add %s, %p : tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// A static iota is computed where it is read: a cross-entropy's label mask
// (iota == label) and its row sum are one row group, with no iota stored.
// CHECK-LABEL: func @iota_in_row_group
// CHECK-NOT: kiln.iota
// CHECK: kiln.fusion_group
// CHECK: kiln.iota dim = 1 : tensor<4x16xi64>
// CHECK: kiln.cmp eq
// CHECK: kiln.reduce_sum
// CHECK: kiln.yield
// CHECK-NOT: kiln.fusion_group
func.func @iota_in_row_group(%logp: tensor<4x16xf32>, %label: tensor<4xi64>) -> tensor<4xf32> {
  %i = kiln.iota dim = 1 : tensor<4x16xi64>
  %l = kiln.broadcast_in_dim %label, dims = [0] : tensor<4xi64> -> tensor<4x16xi64>
  %hit = kiln.cmp eq, %i, %l : tensor<4x16xi64>
  %z = kiln.constant dense<0.0> : tensor<4x16xf32>
  %picked = kiln.select %hit, %logp, %z : tensor<4x16xi1>, tensor<4x16xf32>
  %s = kiln.reduce_sum %picked, dims = [1] : tensor<4x16xf32> -> tensor<4xf32>
  return %s : tensor<4xf32>
}
