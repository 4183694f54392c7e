// RUN: kiln-opt %s -kiln-serialize-inner-loops -split-input-file | FileCheck %s
// RUN: kiln-opt %s -kiln-serialize-inner-loops=vector-width=0 -split-input-file | FileCheck %s --check-prefix=NOVEC

// The loop's accesses are declared parallel (one access group per loop).
// CHECK: #[[GROUP:.+]] = #llvm.access_group<id = distinct[0]<>>
// CHECK: #[[VECTORIZE:.+]] = #llvm.loop_vectorize<disable = false, width = 8 : i32>
// CHECK: #[[ANNOTATION:.+]] = #llvm.loop_annotation<vectorize = #[[VECTORIZE]], parallelAccesses = #[[GROUP]]>
// NOVEC-NOT: loop_annotation

// The outer dims stay parallel; the innermost dim becomes a sequential loop
// that LLVM's loop vectorizer can widen.
// CHECK-LABEL: func @two_dims
// CHECK: scf.parallel (%[[I:.+]]) = (%{{.*}}) to (%{{.*}}) step (%{{.*}}) {
// CHECK-NEXT: scf.for %[[J:.+]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT: memref.load %{{.*}}[%[[I]], %[[J]]]
// CHECK-NEXT: math.tanh
// CHECK-NEXT: memref.store
// The sequential loop asks LLVM to vectorize it, 8 lanes wide.
// CHECK: } {llvm.loop_annotation = #[[ANNOTATION]]}
func.func @two_dims(%a: memref<4x8xf32>, %b: memref<4x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c8) step (%c1, %c1) {
    %v = memref.load %a[%i, %j] : memref<4x8xf32>
    %t = math.tanh %v : f32
    memref.store %t, %b[%i, %j] : memref<4x8xf32>
  }
  return
}

// -----

// A 1-D parallel loop is left as it is.
// CHECK-LABEL: func @one_dim
// CHECK: scf.parallel (%{{.*}}) =
// CHECK-NOT: scf.for
func.func @one_dim(%a: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %z = arith.constant 0.0 : f32
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    memref.store %z, %a[%i] : memref<8xf32>
  }
  return
}
