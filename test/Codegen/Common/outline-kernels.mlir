// RUN: kiln-opt %s -kiln-outline-kernels | FileCheck %s
// RUN: kiln-opt %s -kiln-outline-kernels=dedup=false | FileCheck %s --check-prefix=NODEDUP

// Each linalg op becomes a call of a kernel function; equal kernels (equal
// up to value names) share one function, constants are cloned in, and the
// module records launches and distinct kernels.
// CHECK: module attributes {kiln.kernel_launches = 4 : i64, kiln.unique_kernels = 2 : i64}
// CHECK-LABEL: func @main
// CHECK-SAME: (%[[A:[^:]+]]: memref<4x8xf32>, %[[B:[^:]+]]: memref<4x8xf32>, %[[C:[^:]+]]: memref<4x8xf32>,
// Arguments are passed with a dynamic offset, so that views of one buffer at
// different places (and whole buffers) share their kernel.
// CHECK: %[[CA:.+]] = memref.cast %[[A]] : memref<4x8xf32> to memref<4x8xf32, strided<[8, 1], offset: ?>>
// CHECK: %[[CB:.+]] = memref.cast %[[B]]
// CHECK: call @kiln_kernel_0(%[[CA]], %[[CB]])
// CHECK: call @kiln_kernel_0(
// CHECK: call @kiln_kernel_1(
// CHECK: call @kiln_rt_matmul_f32_nn(
// CHECK-LABEL: func private @kiln_kernel_0
// The memref signature is recorded for -kiln-compact-kernel-abi.
// CHECK-SAME: attributes {kiln.kernel, kiln.kernel_args = [memref<4x8xf32, strided<[8, 1], offset: ?>>, memref<4x8xf32, strided<[8, 1], offset: ?>>], passthrough = ["noinline"]}
// CHECK: linalg.generic
// CHECK: math.tanh
// CHECK-LABEL: func private @kiln_kernel_1
// CHECK-NEXT: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: linalg.fill ins(%[[ZERO]] : f32)
// CHECK-NOT: func private @kiln_kernel_2

// Without deduplication every launch has its own kernel.
// NODEDUP: module attributes {kiln.kernel_launches = 4 : i64, kiln.unique_kernels = 3 : i64}
// NODEDUP: call @kiln_kernel_0(
// NODEDUP: call @kiln_kernel_1(
// NODEDUP: call @kiln_kernel_2(
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func private @kiln_rt_matmul_f32_nn(memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>)
func.func @main(%a: memref<4x8xf32>, %b: memref<4x8xf32>, %c: memref<4x8xf32>, %d: memref<?x?xf32, strided<[?, ?], offset: ?>>) {
  linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%a : memref<4x8xf32>) outs(%b : memref<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = math.tanh %in : f32
    linalg.yield %t : f32
  }
  linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%b : memref<4x8xf32>) outs(%c : memref<4x8xf32>) {
  ^bb0(%x: f32, %y: f32):
    %u = math.tanh %x : f32
    linalg.yield %u : f32
  }
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<4x8xf32>)
  call @kiln_rt_matmul_f32_nn(%d, %d, %d) : (memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>) -> ()
  return
}
