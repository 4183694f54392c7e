// RUN: kiln-opt %s -kiln-outline-kernels -split-input-file | FileCheck %s

// The loop nests of one fusion group (one kiln.kernel_id) become one
// kernel, called where the last of them was; views and allocations between
// them stay in the host.
// CHECK: module attributes {kiln.kernel_launches = 1 : i64, kiln.unique_kernels = 1 : i64}
// CHECK-LABEL: func @nests
// CHECK: %[[D:.+]] = memref.alloc() : memref<7x8xf32>
// CHECK: %[[TOP:.+]] = memref.subview %[[D]][0, 0] [4, 8] [1, 1]
// CHECK: %[[BOTTOM:.+]] = memref.subview %[[D]][4, 0] [3, 8] [1, 1]
// CHECK: call @kiln_kernel_0(
// CHECK-NOT: call
// CHECK: return %[[D]]
// CHECK-LABEL: func private @kiln_kernel_0
// CHECK: linalg.generic
// CHECK: math.tanh
// CHECK: linalg.generic
// CHECK: math.exp
// CHECK-NOT: kiln.kernel_id
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @nests(%a: memref<4x8xf32>, %b: memref<3x8xf32>) -> memref<7x8xf32> {
  %d = memref.alloc() : memref<7x8xf32>
  %top = memref.subview %d[0, 0] [4, 8] [1, 1] : memref<7x8xf32> to memref<4x8xf32, strided<[8, 1]>>
  linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%a : memref<4x8xf32>) outs(%top : memref<4x8xf32, strided<[8, 1]>>) attrs = {kiln.kernel_id = 3 : i64} {
  ^bb0(%x: f32, %o: f32):
    %t = math.tanh %x : f32
    linalg.yield %t : f32
  }
  %bottom = memref.subview %d[4, 0] [3, 8] [1, 1] : memref<7x8xf32> to memref<3x8xf32, strided<[8, 1], offset: 32>>
  linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%b : memref<3x8xf32>) outs(%bottom : memref<3x8xf32, strided<[8, 1], offset: 32>>) attrs = {kiln.kernel_id = 3 : i64} {
  ^bb0(%x: f32, %o: f32):
    %e = math.exp %x : f32
    linalg.yield %e : f32
  }
  return %d : memref<7x8xf32>
}

// -----

// Not across an op that touches memory: moving the first nest past the copy
// could change what it reads, so each nest is a kernel.
// CHECK: module attributes {kiln.kernel_launches = 2 : i64, kiln.unique_kernels = 2 : i64}
// CHECK-LABEL: func @nests_split
// CHECK: call @kiln_kernel_0(
// CHECK: memref.copy
// CHECK: call @kiln_kernel_1(
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @nests_split(%a: memref<4x8xf32>, %b: memref<4x8xf32>, %o: memref<4x8xf32>) -> memref<8x8xf32> {
  %d = memref.alloc() : memref<8x8xf32>
  %top = memref.subview %d[0, 0] [4, 8] [1, 1] : memref<8x8xf32> to memref<4x8xf32, strided<[8, 1]>>
  linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%a : memref<4x8xf32>) outs(%top : memref<4x8xf32, strided<[8, 1]>>) attrs = {kiln.kernel_id = 0 : i64} {
  ^bb0(%x: f32, %y: f32):
    %t = math.tanh %x : f32
    linalg.yield %t : f32
  }
  memref.copy %b, %a : memref<4x8xf32> to memref<4x8xf32>
  %bottom = memref.subview %d[4, 0] [4, 8] [1, 1] : memref<8x8xf32> to memref<4x8xf32, strided<[8, 1], offset: 32>>
  linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%a : memref<4x8xf32>) outs(%bottom : memref<4x8xf32, strided<[8, 1], offset: 32>>) attrs = {kiln.kernel_id = 0 : i64} {
  ^bb0(%x: f32, %y: f32):
    %e = math.exp %x : f32
    linalg.yield %e : f32
  }
  return %d : memref<8x8xf32>
}
