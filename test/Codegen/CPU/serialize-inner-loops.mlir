// RUN: kiln-opt %s -kiln-serialize-inner-loops=min-parallel-iterations=0 -split-input-file | FileCheck %s
// RUN: kiln-opt %s -kiln-serialize-inner-loops="vector-width=0 min-parallel-iterations=0" -split-input-file | FileCheck %s --check-prefix=NOVEC
// RUN: kiln-opt %s -kiln-serialize-inner-loops="interleave=0 min-parallel-iterations=0" -split-input-file | FileCheck %s --check-prefix=NOINTERLEAVE

// The loop's accesses are declared parallel (one access group per loop),
// and 4 vector iterations are interleaved (2 with more than 8 buffers).
// CHECK-DAG: #[[GROUP:.+]] = #llvm.access_group<id = distinct[0]<>>
// CHECK-DAG: #[[VECTORIZE:.+]] = #llvm.loop_vectorize<disable = false, width = 8 : i32>
// CHECK-DAG: #[[INTERLEAVE:.+]] = #llvm.loop_interleave<count = 4 : i32>
// CHECK: #[[ANNOTATION:.+]] = #llvm.loop_annotation<vectorize = #[[VECTORIZE]], interleave = #[[INTERLEAVE]], parallelAccesses = #[[GROUP]]>
// Without vectors (vector-width=0) the loop is still declared parallel.
// NOVEC-NOT: loop_vectorize
// NOVEC: #llvm.loop_annotation<parallelAccesses = #{{.+}}>
// NOVEC-NOT: loop_vectorize
// NOINTERLEAVE: #llvm.loop_annotation<vectorize = #{{.+}}, parallelAccesses = #{{.+}}>
// NOINTERLEAVE-NOT: loop_interleave

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
func.func @two_dims(%a: memref<4x64xf32>, %b: memref<4x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c64) step (%c1, %c1) {
    %v = memref.load %a[%i, %j] : memref<4x64xf32>
    %t = math.tanh %v : f32
    memref.store %t, %b[%i, %j] : memref<4x64xf32>
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

// -----

// With more than 8 buffers, 2 iterations are interleaved.
// CHECK: #llvm.loop_interleave<count = 2 : i32>
// CHECK-LABEL: func @many_buffers
// CHECK: llvm.loop_annotation
func.func @many_buffers(%a: memref<4x64xf32>, %b: memref<4x64xf32>, %c: memref<4x64xf32>, %d: memref<4x64xf32>, %e: memref<4x64xf32>, %f: memref<4x64xf32>, %g: memref<4x64xf32>, %h: memref<4x64xf32>, %o: memref<4x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c64) step (%c1, %c1) {
    %va = memref.load %a[%i, %j] : memref<4x64xf32>
    %vb = memref.load %b[%i, %j] : memref<4x64xf32>
    %vc = memref.load %c[%i, %j] : memref<4x64xf32>
    %vd = memref.load %d[%i, %j] : memref<4x64xf32>
    %ve = memref.load %e[%i, %j] : memref<4x64xf32>
    %vf = memref.load %f[%i, %j] : memref<4x64xf32>
    %vg = memref.load %g[%i, %j] : memref<4x64xf32>
    %vh = memref.load %h[%i, %j] : memref<4x64xf32>
    %0 = arith.addf %va, %vb : f32
    %1 = arith.addf %vc, %vd : f32
    %2 = arith.addf %ve, %vf : f32
    %3 = arith.addf %vg, %vh : f32
    %4 = arith.addf %0, %1 : f32
    %5 = arith.addf %2, %3 : f32
    %6 = arith.addf %4, %5 : f32
    memref.store %6, %o[%i, %j] : memref<4x64xf32>
  }
  return
}

// -----

// A loop shorter than the vector (3 iterations) is left to LLVM's cost
// model, only its accesses declared parallel (no run-time alias checks that
// an output written in place of an input would fail), and one of 8
// iterations is vectorized without interleaving: asking for more lanes
// than there are iterations only makes LLVM warn and keep it scalar.
// CHECK: #llvm.loop_interleave<count = 1 : i32>
// CHECK: #[[VECTOR:.+]] = #llvm.loop_annotation<vectorize = {{.+}}, parallelAccesses = #{{.+}}>
// CHECK: #[[PARALLEL:.+]] = #llvm.loop_annotation<parallelAccesses = #{{.+}}>
// CHECK-LABEL: func @short_loops
// CHECK: scf.for
// CHECK: } {llvm.loop_annotation = #[[VECTOR]]}
// CHECK: scf.for
// CHECK: } {llvm.loop_annotation = #[[PARALLEL]]}
// CHECK: return
func.func @short_loops(%a: memref<4x8xf32>, %b: memref<4x3xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %z = arith.constant 0.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c8) step (%c1, %c1) {
    memref.store %z, %a[%i, %j] : memref<4x8xf32>
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c3) step (%c1, %c1) {
    memref.store %z, %b[%i, %j] : memref<4x3xf32>
  }
  return
}
