// RUN: kiln-opt %s -kiln-lower-to-linalg -kiln-fuse-linalg-elementwise -split-input-file | FileCheck %s

// A fusion group's body lowers in place; linalg elementwise fusion then
// makes a chain of elementwise ops one linalg.generic. A producer used twice
// by the same consumer (t * t) fuses too.
// CHECK-LABEL: func @group
// CHECK-NOT: kiln.
// CHECK: %[[G:.+]] = linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<4x8xf32>) outs(%{{.*}} : tensor<4x8xf32>)
// CHECK: math.tanh
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK-NOT: linalg.generic
// CHECK: return %[[G]]
func.func @group(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = kiln.fusion_group %a, %b : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>):
    %t = kiln.tanh %x : tensor<4x8xf32>
    %m = kiln.mul %t, %t : tensor<4x8xf32>
    %s = kiln.add %m, %y : tensor<4x8xf32>
    kiln.yield %s : tensor<4x8xf32>
  }
  return %0 : tensor<4x8xf32>
}

// -----

// A producer with uses in two ops is not fused (it would be computed twice).
// CHECK-LABEL: func @shared_producer
// CHECK: linalg.generic
// CHECK: math.tanh
// CHECK: linalg.generic
// CHECK-NOT: math.tanh
// CHECK: arith.mulf
func.func @shared_producer(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %t = kiln.tanh %a : tensor<4x8xf32>
  %m = kiln.mul %t, %b : tensor<4x8xf32>
  return %m, %t : tensor<4x8xf32>, tensor<4x8xf32>
}
