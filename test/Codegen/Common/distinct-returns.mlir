// RUN: kiln-opt %s -kiln-distinct-returns | FileCheck %s

// A buffer returned twice is copied once, so that each result has its own.
// CHECK-LABEL: func @twice
// CHECK-SAME: (%[[A:[^:]+]]: memref<3x?xf32>, %[[B:[^:]+]]: memref<2xf32>)
// CHECK: %[[C1:.+]] = arith.constant 1 : index
// CHECK: %[[D:.+]] = memref.dim %[[A]], %[[C1]]
// CHECK: %[[COPY:.+]] = memref.alloc(%[[D]]) {alignment = 64 : i64} : memref<3x?xf32>
// CHECK: memref.copy %[[A]], %[[COPY]]
// CHECK-NOT: memref.copy
// CHECK: return %[[A]], %[[COPY]], %[[B]] :
func.func @twice(%a: memref<3x?xf32>, %b: memref<2xf32>) -> (memref<3x?xf32>, memref<3x?xf32>, memref<2xf32>) {
  return %a, %a, %b : memref<3x?xf32>, memref<3x?xf32>, memref<2xf32>
}
