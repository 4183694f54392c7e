// RUN: kiln-opt %s -kiln-serialize-inner-loops -split-input-file | FileCheck %s
// RUN: kiln-opt %s -kiln-serialize-inner-loops=min-parallel-iterations=100000 -split-input-file | FileCheck %s --check-prefix=HIGH

// A parallel nest with fewer innermost iterations than
// min-parallel-iterations (8192 by default) becomes sequential loops: an
// OpenMP fork and join costs more than the work. The innermost loop is
// still vectorized.
// CHECK-LABEL: func @small
// CHECK-NOT: scf.parallel
// CHECK: scf.for %[[I:.+]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT: scf.for %[[J:.+]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT: memref.load %{{.*}}[%[[I]], %[[J]]]
// CHECK-NEXT: math.tanh
// CHECK-NEXT: memref.store
// CHECK: } {llvm.loop_annotation = #{{.+}}}
// HIGH-LABEL: func @small
func.func @small(%a: memref<16x64xf32>, %b: memref<16x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c16, %c64) step (%c1, %c1) {
    %x = memref.load %a[%i, %j] : memref<16x64xf32>
    %y = math.tanh %x : f32
    memref.store %y, %b[%i, %j] : memref<16x64xf32>
    scf.reduce
  }
  return
}

// -----

// Inner sequential loops count: 64 x 256 = 16384 iterations stay parallel
// (over the outer dim); a higher threshold makes them sequential. A loop
// around another is not LLVM's to vectorize: no annotation asks it to (its
// accesses are still declared parallel).
// CHECK-LABEL: func @with_inner_loop
// CHECK: scf.parallel
// HIGH: #[[PARALLEL:.+]] = #llvm.loop_annotation<parallelAccesses = #{{.+}}>
// HIGH-NEXT: module
// HIGH-NEXT: func.func @with_inner_loop
// HIGH-NOT: scf.parallel
// HIGH: scf.for
// HIGH: scf.for
// HIGH: }
// HIGH-NEXT: } {llvm.loop_annotation = #[[PARALLEL]]}
func.func @with_inner_loop(%a: memref<64x256xf32>, %b: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    scf.for %k = %c0 to %c256 step %c1 {
      %x = memref.load %a[%i, %k] : memref<64x256xf32>
      %acc = memref.load %b[%i] : memref<64xf32>
      %s = arith.addf %x, %acc : f32
      memref.store %s, %b[%i] : memref<64xf32>
    }
    scf.reduce
  }
  return
}

// -----

// Dynamic trip counts are not known to be small: the loop stays parallel.
// CHECK-LABEL: func @dynamic
// CHECK: scf.parallel
// HIGH-LABEL: func @dynamic
// HIGH: scf.parallel
func.func @dynamic(%a: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    %x = memref.load %a[%i] : memref<?xf32>
    %y = math.exp %x : f32
    memref.store %y, %a[%i] : memref<?xf32>
    scf.reduce
  }
  return
}

// -----

// A row kernel's per-row scratch (a memref.alloca in an alloca_scope) over
// rows (i, j): the inner dim j becomes an scf.for, and one scratch before
// it serves every row j of an i. Left in the scf.for, the canonicalizer
// would inline the scope (scf.for is an automatic allocation scope) and
// the stack would grow every row.
// CHECK-LABEL: func @row_scratch
// CHECK: scf.parallel
// CHECK-NEXT: %[[SCRATCH:.+]] = memref.alloca() : memref<64xf32>
// CHECK-NEXT: scf.for
// CHECK-NEXT: memref.alloca_scope
// CHECK-NOT: memref.alloca()
// CHECK: memref.store %{{.*}}, %[[SCRATCH]]
func.func @row_scratch(%a: memref<2x16x64xf32>, %b: memref<2x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c2, %c16) step (%c1, %c1) {
    memref.alloca_scope {
      %scratch = memref.alloca() : memref<64xf32>
      scf.for %k = %c0 to %c64 step %c1 {
        %x = memref.load %a[%i, %j, %k] : memref<2x16x64xf32>
        memref.store %x, %scratch[%k] : memref<64xf32>
      }
      %y = memref.load %scratch[%c0] : memref<64xf32>
      memref.store %y, %b[%i, %j] : memref<2x16xf32>
    }
    scf.reduce
  }
  return
}
