// RUN: kiln-opt %s -kiln-lower-column-reductions -split-input-file | FileCheck %s
// RUN: kiln-opt %s -kiln-lower-column-reductions="vector-width=0" -split-input-file | FileCheck %s --check-prefix=NOVEC

// NOVEC-NOT: loop_annotation

// A bias gradient next to the elementwise work fused with it (GELU's
// backward): the sum over the rows of [1000, 1024] buffers, contiguous in
// the columns. One block of all 1024 columns (4 KB a row, a page the
// prefetcher follows) would leave the threads idle, so the rows are split
// in 8 chunks of 125, each summing into its own row of partial results
// (the first starting from the output, the others from 0), each row of a
// chunk one contiguous, vectorized run. The partial results are then
// combined in chunk order.
// CHECK-LABEL: func @bias_gradient
// CHECK: linalg.fill
// CHECK-DAG: %[[C0:.+]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.+]] = arith.constant 1 : index
// CHECK-DAG: %[[C8:.+]] = arith.constant 8 : index
// CHECK-DAG: %[[C125:.+]] = arith.constant 125 : index
// CHECK-DAG: %[[C1000:.+]] = arith.constant 1000 : index
// CHECK-DAG: %[[C1024:.+]] = arith.constant 1024 : index
// CHECK-DAG: %[[PARTIAL:.+]] = memref.alloc() : memref<8x1024xf32>
// CHECK: scf.parallel (%[[CHUNK:.+]]) = (%[[C0]]) to (%[[C8]]) step (%[[C1]]) {
// CHECK: scf.for %[[I:.+]] = %[[C0]] to %[[C1024]] step %[[C1]] {
// CHECK: %[[FIRST:.+]] = arith.cmpi eq, %[[CHUNK]], %[[C0]]
// CHECK: %[[OLD:.+]] = memref.load %[[DB:.+]][%[[I]]]
// CHECK: %[[START:.+]] = arith.select %[[FIRST]], %[[OLD]], %{{.+}} : f32
// CHECK: memref.store %[[START]], %[[PARTIAL]][%[[CHUNK]], %[[I]]]
// CHECK: } {llvm.loop_annotation
// CHECK: %[[LO:.+]] = arith.muli %[[CHUNK]], %[[C125]]
// CHECK: %[[NEXT:.+]] = arith.addi %[[LO]], %[[C125]]
// CHECK: %[[HI:.+]] = arith.minsi %[[NEXT]], %[[C1000]]
// CHECK: scf.for %[[ROW:.+]] = %[[LO]] to %[[HI]] step %[[C1]] {
// CHECK: scf.for %[[COL:.+]] = %[[C0]] to %[[C1024]] step %[[C1]] {
// CHECK-NEXT: %[[X:.+]] = memref.load %[[IN:.+]][%[[ROW]], %[[COL]]]
// CHECK-NEXT: %[[G:.+]] = memref.load %[[GRAD:.+]][%[[ROW]], %[[COL]]]
// CHECK-NEXT: %[[ACC:.+]] = memref.load %[[PARTIAL]][%[[CHUNK]], %[[COL]]]
// CHECK-NEXT: %[[T:.+]] = math.tanh %[[X]]
// CHECK-NEXT: %[[D:.+]] = arith.mulf %[[G]], %[[T]]
// CHECK-NEXT: %[[S:.+]] = arith.addf %[[ACC]], %[[D]] : f32
// CHECK-NEXT: memref.store %[[D]], %{{.+}}[%[[ROW]], %[[COL]]]
// CHECK-NEXT: memref.store %[[S]], %[[PARTIAL]][%[[CHUNK]], %[[COL]]]
// CHECK-NEXT: } {llvm.loop_annotation
// CHECK: scf.reduce
// CHECK: scf.for %[[J:.+]] = %[[C0]] to %[[C1024]] step %[[C1]] {
// CHECK: %[[P0:.+]] = memref.load %[[PARTIAL]][%[[C0]], %[[J]]]
// CHECK: %[[SUM:.+]] = scf.for %[[K:.+]] = %[[C1]] to %[[C8]] step %[[C1]] iter_args(%[[TOTAL:.+]] = %[[P0]]) -> (f32) {
// CHECK: %[[PK:.+]] = memref.load %[[PARTIAL]][%[[K]], %[[J]]]
// CHECK: %[[R:.+]] = arith.addf %[[TOTAL]], %[[PK]] : f32
// CHECK: scf.yield %[[R]]
// CHECK: memref.store %[[SUM]], %[[DB]][%[[J]]]
// CHECK: memref.dealloc %[[PARTIAL]]
// CHECK-NOT: linalg.generic
func.func @bias_gradient(%x: memref<1000x1024xf32>, %g: memref<1000x1024xf32>, %dx: memref<1000x1024xf32>, %db: memref<1024xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  linalg.fill ins(%zero : f32) outs(%db : memref<1024xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x, %g : memref<1000x1024xf32>, memref<1000x1024xf32>) outs(%dx, %db : memref<1000x1024xf32>, memref<1024xf32>) {
  ^bb0(%in: f32, %grad: f32, %out: f32, %acc: f32):
    %0 = math.tanh %in : f32
    %1 = arith.mulf %grad, %0 : f32
    %2 = arith.addf %acc, %1 : f32
    linalg.yield %1, %2 : f32, f32
  }
  return
}

// -----

// A column sum of a batch of matrices over their rows and the batch
// ([4, 50, 40] -> [40], the batch dims first in the loop order): blocks of
// 32 columns (at least 8 lanes x 4 interleaved), the last one cut at 40,
// the two reduction loops in their order.
// CHECK-LABEL: func @two_reduction_dims
// CHECK-DAG: %[[C32:.+]] = arith.constant 32 : index
// CHECK-DAG: %[[C40:.+]] = arith.constant 40 : index
// CHECK: scf.parallel (%[[BLOCK:.+]]) = (%{{.+}}) to (%[[C40]]) step (%[[C32]])
// CHECK: %[[NEXT:.+]] = arith.addi %[[BLOCK]], %[[C32]]
// CHECK: %[[END:.+]] = arith.minsi %[[NEXT]], %[[C40]]
// CHECK: scf.for %[[B:.+]] = %{{.+}} to %{{.+}} step
// CHECK: scf.for %[[R:.+]] = %{{.+}} to %{{.+}} step
// CHECK: scf.for %[[COL:.+]] = %[[BLOCK]] to %[[END]]
// CHECK: memref.load %{{.+}}[%[[B]], %[[R]], %[[COL]]]
func.func @two_reduction_dims(%x: memref<4x50x40xf32>, %s: memref<40xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d2, d0)>, affine_map<(d0, d1, d2) -> (d0)>], iterator_types = ["parallel", "reduction", "reduction"]} ins(%x : memref<4x50x40xf32>) outs(%s : memref<40xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %acc, %in : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// Columns that fit one block: no parallel loop, static bounds.
// CHECK-LABEL: func @one_block
// CHECK-NOT: scf.parallel
// CHECK: scf.for %[[ROW:.+]] = %[[C0:.+]] to %[[C50:.+]] step
// CHECK: scf.for %[[COL:.+]] = %[[C0]] to %[[C7:.+]] step
// CHECK: memref.load %{{.+}}[%[[ROW]], %[[COL]]]
func.func @one_block(%x: memref<50x7xf32>, %s: memref<7xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : memref<50x7xf32>) outs(%s : memref<7xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %acc, %in : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// Row reductions (contiguous in the reduced dim) and reductions whose
// contiguous dim comes after the reduction in the loop order are left to
// the default lowering.
// CHECK-LABEL: func @left_alone
// CHECK-COUNT-2: linalg.generic
// CHECK-NOT: scf.parallel
func.func @left_alone(%x: memref<64x32xf32>, %rows: memref<64xf32>, %cols: memref<32xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : memref<64x32xf32>) outs(%rows : memref<64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %acc, %in : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]} ins(%x : memref<64x32xf32>) outs(%cols : memref<32xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %acc, %in : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// A body that asks for its indices (a random number's counter, fused into
// a bias gradient) reads the loops' induction variables: the rows' loop
// for the reduction dim, the columns' for the column dim.
// CHECK-LABEL: func @indices
// CHECK:      scf.for %[[ROW:[^ ]+]] =
// CHECK-NEXT: scf.for %[[COL:[^ ]+]] =
// CHECK-NOT:  linalg.index
// CHECK:      arith.index_cast %[[ROW]]
// CHECK:      arith.index_cast %[[COL]]
// CHECK-NOT:  linalg.generic
func.func @indices(%x: memref<64x32xf32>, %cols: memref<32xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : memref<64x32xf32>) outs(%cols : memref<32xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %i = linalg.index 1 : index
    %j = arith.index_cast %i : index to i32
    %k = linalg.index 0 : index
    %l = arith.index_cast %k : index to i32
    %m = arith.addi %j, %l : i32
    %f = arith.sitofp %m : i32 to f32
    %0 = arith.addf %acc, %in : f32
    %1 = arith.addf %0, %f : f32
    linalg.yield %1 : f32
  }
  return
}
