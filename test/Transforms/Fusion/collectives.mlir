// RUN: kiln-opt %s -kiln-fuse -split-input-file | FileCheck %s

// A collective is a group boundary: the elementwise work before it is one
// group, the work after it another, and the collective stays between them,
// never inside a group (its result exists only once every rank has sent).
// CHECK-LABEL: func @boundary
// CHECK: %[[A:.+]] = kiln.fusion_group %arg0 : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK: kiln.tanh
// CHECK: kiln.mul
// CHECK: kiln.yield
// CHECK: %[[R:.+]] = kiln.all_reduce mean, %[[A]] group = 0 : tensor<4x8xf32>
// CHECK: %[[B:.+]] = kiln.fusion_group %[[R]], %arg0 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK: kiln.sub
// CHECK: kiln.exp
// CHECK: kiln.yield
// CHECK: return %[[B]]
func.func @boundary(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %t = kiln.tanh %x : tensor<4x8xf32>
  %g = kiln.mul %t, %t : tensor<4x8xf32>
  %r = kiln.all_reduce mean, %g group = 0 : tensor<4x8xf32>
  %d = kiln.sub %r, %x : tensor<4x8xf32>
  %y = kiln.exp %d : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// Two collectives keep their order, and the concat that feeds one bucket is
// the exit of the group that computes its parts.
// CHECK-LABEL: func @bucket
// CHECK: %[[G:.+]] = kiln.fusion_group
// CHECK: kiln.concat
// CHECK: kiln.yield
// CHECK: kiln.all_reduce sum, %[[G]]
// CHECK: kiln.all_gather
func.func @bucket(%a: tensor<8xf32>, %b: tensor<8xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
  %x = kiln.tanh %a : tensor<8xf32>
  %y = kiln.sigmoid %b : tensor<8xf32>
  %c = kiln.concat %x, %y dim = 0 : tensor<8xf32>, tensor<8xf32> -> tensor<16xf32>
  %r = kiln.all_reduce sum, %c group = 0 : tensor<16xf32>
  %g = kiln.all_gather %a dim = 0 group = 0 : tensor<8xf32> -> tensor<16xf32>
  return %r, %g : tensor<16xf32>, tensor<16xf32>
}
