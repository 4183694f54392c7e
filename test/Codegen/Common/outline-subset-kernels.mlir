// RUN: kiln-opt %s -split-input-file -kiln-outline-kernels | FileCheck %s
// RUN: kiln-opt %s -split-input-file -kiln-outline-kernels=dedup=false | FileCheck %s --check-prefix=NODEDUP

// A kernel that another contains (the same inputs, one output and the op
// only it needs fewer, its ops in another order, its inputs in another
// order) runs as that kernel: the missing output goes to scratch of the
// same strides, which the deallocation pass frees. The last step of an
// unrolled loop whose initial state needs no gradient is such a kernel.
// CHECK: module attributes {kiln.kernel_launches = 3 : i64, kiln.unique_kernels = 1 : i64}
// CHECK-LABEL: func @fold
// CHECK-SAME: (%[[X:[^:]+]]: memref<4x8xf32>, %[[Y:[^:]+]]: memref<4x8xf32>, %[[Z:[^:]+]]: memref<4x8xf32>,
// CHECK-SAME: %[[O5:[^:]+]]: memref<4x8xf32>)
// CHECK: call @kiln_kernel_0(
// CHECK: call @kiln_kernel_0(
// CHECK-DAG: %[[CZ:.+]] = memref.cast %[[Z]]
// CHECK-DAG: %[[CX:.+]] = memref.cast %[[X]]
// CHECK-DAG: %[[CY:.+]] = memref.cast %[[Y]]
// CHECK-DAG: %[[CO:.+]] = memref.cast %[[O5]]
// CHECK: %[[FLAT:.+]] = memref.alloc() : memref<32xf32>
// CHECK: %[[VIEW:.+]] = memref.reinterpret_cast %[[FLAT]] to offset: [0], sizes: [4, 8], strides: [8, 1]
// CHECK: %[[SCRATCH:.+]] = memref.cast %[[VIEW]] : memref<4x8xf32, strided<[8, 1]>> to memref<4x8xf32, strided<[8, 1], offset: ?>>
// CHECK: call @kiln_kernel_0(%[[CX]], %[[CY]], %[[CZ]], %[[SCRATCH]], %[[CO]])
// CHECK-LABEL: func private @kiln_kernel_0
// CHECK: math.tanh
// CHECK-NOT: func private @kiln_kernel_1

// NODEDUP: module attributes {kiln.kernel_launches = 3 : i64, kiln.unique_kernels = 3 : i64}
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @fold(%x: memref<4x8xf32>, %y: memref<4x8xf32>, %z: memref<4x8xf32>, %o1: memref<4x8xf32>, %o2: memref<4x8xf32>, %o3: memref<4x8xf32>, %o4: memref<4x8xf32>, %o5: memref<4x8xf32>) {
  linalg.generic {indexing_maps = [#map, #map, #map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%x, %y, %z : memref<4x8xf32>, memref<4x8xf32>, memref<4x8xf32>) outs(%o1, %o2 : memref<4x8xf32>, memref<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %p: f32, %q: f32):
    %s = arith.addf %a, %b : f32
    %t = math.tanh %s : f32
    %m = arith.mulf %s, %c : f32
    linalg.yield %t, %m : f32, f32
  }
  linalg.generic {indexing_maps = [#map, #map, #map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%x, %y, %z : memref<4x8xf32>, memref<4x8xf32>, memref<4x8xf32>) outs(%o3, %o4 : memref<4x8xf32>, memref<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %p: f32, %q: f32):
    %s = arith.addf %a, %b : f32
    %t = math.tanh %s : f32
    %m = arith.mulf %s, %c : f32
    linalg.yield %t, %m : f32, f32
  }
  linalg.generic {indexing_maps = [#map, #map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%z, %x, %y : memref<4x8xf32>, memref<4x8xf32>, memref<4x8xf32>) outs(%o5 : memref<4x8xf32>) {
  ^bb0(%c: f32, %a: f32, %b: f32, %q: f32):
    %s = arith.addf %a, %b : f32
    %m = arith.mulf %s, %c : f32
    linalg.yield %m : f32
  }
  return
}

// -----

// A kernel called more often than the one that contains it keeps its own:
// the scratch would be written on every one of its calls.
// CHECK: module attributes {kiln.kernel_launches = 3 : i64, kiln.unique_kernels = 2 : i64}
// CHECK-LABEL: func @more_calls
// CHECK-NOT: memref.alloc
// CHECK: call @kiln_kernel_0(
// CHECK: call @kiln_kernel_1(
// CHECK: call @kiln_kernel_1(
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @more_calls(%x: memref<4x8xf32>, %y: memref<4x8xf32>, %z: memref<4x8xf32>, %o1: memref<4x8xf32>, %o2: memref<4x8xf32>, %o3: memref<4x8xf32>, %o4: memref<4x8xf32>) {
  linalg.generic {indexing_maps = [#map, #map, #map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%x, %y, %z : memref<4x8xf32>, memref<4x8xf32>, memref<4x8xf32>) outs(%o1, %o2 : memref<4x8xf32>, memref<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %p: f32, %q: f32):
    %s = arith.addf %a, %b : f32
    %t = math.tanh %s : f32
    %m = arith.mulf %s, %c : f32
    linalg.yield %t, %m : f32, f32
  }
  linalg.generic {indexing_maps = [#map, #map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%x, %y, %z : memref<4x8xf32>, memref<4x8xf32>, memref<4x8xf32>) outs(%o3 : memref<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %q: f32):
    %s = arith.addf %a, %b : f32
    %m = arith.mulf %s, %c : f32
    linalg.yield %m : f32
  }
  linalg.generic {indexing_maps = [#map, #map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%x, %y, %z : memref<4x8xf32>, memref<4x8xf32>, memref<4x8xf32>) outs(%o4 : memref<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %q: f32):
    %s = arith.addf %a, %b : f32
    %m = arith.mulf %s, %c : f32
    linalg.yield %m : f32
  }
  return
}

// -----

// Scratch of more than a quarter of the bytes the smaller kernel moves, or
// a value computed differently, and the kernels stay apart.
// CHECK: module attributes {kiln.kernel_launches = 4 : i64, kiln.unique_kernels = 3 : i64}
// CHECK-LABEL: func @too_costly
// CHECK-NOT: memref.alloc
// CHECK: call @kiln_kernel_0(
// CHECK: call @kiln_kernel_0(
// CHECK: call @kiln_kernel_1(
// CHECK: call @kiln_kernel_2(
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @too_costly(%x: memref<4x8xf32>, %y: memref<4x8xf32>, %o1: memref<4x8xf32>, %o2: memref<4x8xf32>, %o3: memref<4x8xf32>, %o4: memref<4x8xf32>, %o5: memref<4x8xf32>, %o6: memref<4x8xf32>) {
  linalg.generic {indexing_maps = [#map, #map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%x, %y : memref<4x8xf32>, memref<4x8xf32>) outs(%o1, %o2 : memref<4x8xf32>, memref<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %p: f32, %q: f32):
    %s = arith.addf %a, %b : f32
    %t = math.tanh %s : f32
    linalg.yield %t, %s : f32, f32
  }
  linalg.generic {indexing_maps = [#map, #map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%x, %y : memref<4x8xf32>, memref<4x8xf32>) outs(%o3, %o4 : memref<4x8xf32>, memref<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %p: f32, %q: f32):
    %s = arith.addf %a, %b : f32
    %t = math.tanh %s : f32
    linalg.yield %t, %s : f32, f32
  }
  // The sum alone: the tanh's output would be a third of what it moves.
  linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%x, %y : memref<4x8xf32>, memref<4x8xf32>) outs(%o5 : memref<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %q: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  }
  // A difference: no output of the first computes it.
  linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%x, %y : memref<4x8xf32>, memref<4x8xf32>) outs(%o6 : memref<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %q: f32):
    %s = arith.subf %a, %b : f32
    linalg.yield %s : f32
  }
  return
}
