// RUN: kiln-opt %s -kiln-lower-row-kernels -split-input-file | FileCheck %s
// RUN: kiln-opt %s -kiln-lower-row-kernels="vector-width=0" -split-input-file | FileCheck %s --check-prefix=NOVEC
// RUN: kiln-opt %s -kiln-lower-row-kernels="max-scratch-bytes=0" -split-input-file | FileCheck %s --check-prefix=RECOMPUTE

// NOVEC-NOT: loop_annotation

// softmax's row kernel: one parallel loop over the rows; in it the max and
// the sum are scf.for accumulators (the sum's add reassociable), the row
// values are SSA scalars read by the later loops, and each is also stored.
// The sum's exp(x - max) is kept in a row scratch (in a scope per row) for
// the results, which load it rather than compute a second exp (with no
// scratch allowed, they compute it again), and multiply it by the sum's
// reciprocal, computed once per row, rather than divide.
// CHECK-LABEL: func @softmax
// CHECK-DAG: %[[NEG_INF:.+]] = arith.constant 0xFF800000 : f32
// CHECK-DAG: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: scf.parallel (%[[ROW:.+]]) =
// CHECK-NEXT: memref.alloca_scope {
// CHECK-NEXT: %[[SCRATCH:.+]] = memref.alloca() : memref<100xf32>
// CHECK: memref.store %[[NEG_INF]], %[[MAX:.+]][%[[ROW]]]
// CHECK: %[[M:.+]] = scf.for %[[J:.+]] = {{.*}} iter_args(%[[ACC:.+]] = %[[NEG_INF]]) -> (f32) {
// CHECK-NEXT: %[[X:.+]] = memref.load %[[IN:.+]][%[[ROW]], %[[J]]]
// CHECK-NEXT: %[[NEXT:.+]] = arith.maximumf %[[ACC]], %[[X]] : f32
// CHECK-NEXT: scf.yield %[[NEXT]]
// CHECK-NEXT: } {llvm.loop_annotation
// CHECK-NEXT: memref.store %[[M]], %[[MAX]][%[[ROW]]]
// CHECK: %[[S:.+]] = scf.for %[[J2:.+]] = {{.*}} iter_args(%[[ACC2:.+]] = %[[ZERO]]) -> (f32) {
// CHECK: arith.subf %{{.+}}, %[[M]] : f32
// CHECK: %[[E:.+]] = math.exp
// CHECK-NEXT: memref.store %[[E]], %[[SCRATCH]][%[[J2]]]
// CHECK: arith.addf %[[ACC2]], %[[E]] fastmath<reassoc> : f32
// CHECK: %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[R:.+]] = arith.divf %[[ONE]], %[[S]] : f32
// CHECK: memref.store %[[S]], %{{.+}}[%[[ROW]]]
// CHECK: scf.for %[[J3:.+]] =
// CHECK-NOT: math.exp
// CHECK: %[[EL:.+]] = memref.load %[[SCRATCH]][%[[J3]]]
// CHECK-NEXT: %[[Y:.+]] = arith.mulf %[[EL]], %[[R]] : f32
// CHECK: memref.store %[[Y]], %{{.+}}[%[[ROW]], %[[J3]]]
// CHECK-NOT: linalg.
// RECOMPUTE-LABEL: func @softmax
// RECOMPUTE-NOT: memref.alloca
// RECOMPUTE-COUNT-2: math.exp
// RECOMPUTE-LABEL: func @
func.func @softmax(%max: memref<32xf32>, %x: memref<32x100xf32>, %sum: memref<32xf32>, %y: memref<32x100xf32>) {
  %neg_inf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.000000e+00 : f32
  linalg.fill ins(%neg_inf : f32) outs(%max : memref<32xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : memref<32x100xf32>) outs(%max : memref<32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.maximumf %out, %in : f32
    linalg.yield %0 : f32
  }
  linalg.fill ins(%zero : f32) outs(%sum : memref<32xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x, %max : memref<32x100xf32>, memref<32xf32>) outs(%sum : memref<32xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %0 = arith.subf %in, %m : f32
    %1 = math.exp %0 : f32
    %2 = arith.addf %out, %1 : f32
    linalg.yield %2 : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %max, %sum : memref<32x100xf32>, memref<32xf32>, memref<32xf32>) outs(%y : memref<32x100xf32>) {
  ^bb0(%in: f32, %m: f32, %s: f32, %out: f32):
    %0 = arith.subf %in, %m : f32
    %1 = math.exp %0 : f32
    %2 = arith.divf %1, %s : f32
    linalg.yield %2 : f32
  }
  return
}

// -----

// Rows indexed by two dims, a per-column input (gamma) that every row
// reads, and a nest over the rows alone (the mean): RMSNorm-like.
// CHECK-LABEL: func @two_row_dims
// CHECK: scf.parallel (%[[R0:.+]], %[[R1:.+]]) =
// CHECK: %[[SQ:.+]] = scf.for %[[J:.+]] = {{.*}} iter_args
// CHECK: memref.store %[[SQ]], %{{.+}}[%[[R0]], %[[R1]]]
// CHECK: %[[MEAN:.+]] = arith.mulf %[[SQ]], %{{.+}} : f32
// CHECK-NEXT: memref.store %[[MEAN]], %{{.+}}[%[[R0]], %[[R1]]]
// CHECK: scf.for %[[J2:.+]] =
// CHECK: memref.load %{{.+}}[%[[J2]]] : memref<50xf32>
// CHECK: arith.mulf %{{.+}}, %[[MEAN]]
// CHECK-NOT: linalg.
func.func @two_row_dims(%x: memref<4x8x50xf32>, %gamma: memref<50xf32>, %sq: memref<4x8xf32>, %mean: memref<4x8xf32>, %y: memref<4x8x50xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %inv = arith.constant 2.000000e-02 : f32
  linalg.fill ins(%zero : f32) outs(%sq : memref<4x8xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x : memref<4x8x50xf32>) outs(%sq : memref<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.mulf %in, %in : f32
    %1 = arith.addf %out, %0 : f32
    linalg.yield %1 : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%sq : memref<4x8xf32>) outs(%mean : memref<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.mulf %in, %inv : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %gamma, %mean : memref<4x8x50xf32>, memref<50xf32>, memref<4x8xf32>) outs(%y : memref<4x8x50xf32>) {
  ^bb0(%in: f32, %g: f32, %m: f32, %out: f32):
    %0 = arith.mulf %in, %g : f32
    %1 = arith.mulf %0, %m : f32
    linalg.yield %1 : f32
  }
  return
}

// -----

// A kernel that reads a buffer it writes other than along the same row
// (here transposed) depends on other rows: it is left alone.
// CHECK-LABEL: func @reads_other_rows
// CHECK-NOT: scf.parallel
// CHECK: linalg.generic
// CHECK: linalg.fill
// CHECK: linalg.generic
// CHECK: linalg.generic
func.func @reads_other_rows(%x: memref<8x8xf32>, %sum: memref<8xf32>, %t: memref<8x8xf32>, %y: memref<8x8xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : memref<8x8xf32>) outs(%t : memref<8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %in : f32
    linalg.yield %0 : f32
  }
  linalg.fill ins(%zero : f32) outs(%sum : memref<8xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : memref<8x8xf32>) outs(%sum : memref<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %out, %in : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%t, %sum : memref<8x8xf32>, memref<8xf32>) outs(%y : memref<8x8xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %0 = arith.divf %in, %s : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// No reduction: not a row kernel (-kiln-serialize-inner-loops handles it).
// CHECK-LABEL: func @elementwise
// CHECK-NOT: scf.parallel
// CHECK: linalg.generic
func.func @elementwise(%x: memref<8x8xf32>, %y: memref<8x8xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : memref<8x8xf32>) outs(%y : memref<8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.exp %in : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// Reductions over different rows (sizes) in one function: left alone.
// CHECK-LABEL: func @different_rows
// CHECK-NOT: scf.parallel
func.func @different_rows(%x: memref<8x4xf32>, %z: memref<4x8xf32>, %a: memref<8xf32>, %b: memref<4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : memref<8x4xf32>) outs(%a : memref<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %out, %in : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%z : memref<4x8xf32>) outs(%b : memref<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %out, %in : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// A buffer the kernel never writes may be read anywhere: attention's mask,
// the same for every head (rows are (head, query)).
// CHECK-LABEL: func @mask_over_heads
// CHECK: scf.parallel (%[[H:.+]], %[[Q:.+]]) =
// CHECK: scf.for %[[K:.+]] = {{.*}} iter_args
// CHECK: memref.load %{{.+}}[%[[Q]], %[[K]]] : memref<16x16xf32>
// CHECK-NOT: linalg.
func.func @mask_over_heads(%s: memref<4x16x16xf32>, %mask: memref<16x16xf32>, %max: memref<4x16xf32>) {
  %neg_inf = arith.constant 0xFF800000 : f32
  linalg.fill ins(%neg_inf : f32) outs(%max : memref<4x16xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%s, %mask : memref<4x16x16xf32>, memref<16x16xf32>) outs(%max : memref<4x16xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %0 = arith.addf %in, %m : f32
    %1 = arith.maximumf %out, %0 : f32
    linalg.yield %1 : f32
  }
  return
}

// -----

// A sum over the rows of [1024, 256] buffers (LayerNorm's dgamma): its
// "rows" would be the buffers' columns, one element a whole buffer row
// apart. It is left to -kiln-lower-column-reductions.
// CHECK-LABEL: func @column_sum
// CHECK: linalg.fill
// CHECK: linalg.generic
// CHECK-NOT: scf.parallel
func.func @column_sum(%dy: memref<1024x256xf32>, %xhat: memref<1024x256xf32>, %dg: memref<256xf32>) attributes {kiln.kernel} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%dg : memref<256xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%dy, %xhat : memref<1024x256xf32>, memref<1024x256xf32>) outs(%dg : memref<256xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}
