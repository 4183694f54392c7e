// RUN: kiln-opt %s -split-input-file -kiln-map-kernels-to-gpu | FileCheck %s

// A kernel whose second op reads what its first wrote waits for the whole
// grid: another launch. Whether two arguments are one buffer is decided at
// the calls: views of one buffer that may share an element count as one.

#id = affine_map<(d0, d1) -> (d0, d1)>

// Overlapping views (rows 0-3 and 2-5 of one buffer): two launches.
// CHECK-LABEL: func.func @overlapping(
// CHECK: gpu.launch_func @kiln_gpu::@kiln_kernel_0_0
// CHECK: gpu.launch_func @kiln_gpu::@kiln_kernel_0_1
func.func @overlapping(%x: memref<4x8xf32>, %buf: memref<6x8xf32>, %y: memref<4x8xf32>) {
  %a = memref.subview %buf[0, 0] [4, 8] [1, 1] : memref<6x8xf32> to memref<4x8xf32, strided<[8, 1]>>
  %b = memref.subview %buf[2, 0] [4, 8] [1, 1] : memref<6x8xf32> to memref<4x8xf32, strided<[8, 1], offset: 16>>
  %ca = memref.cast %a : memref<4x8xf32, strided<[8, 1]>> to memref<4x8xf32, strided<[8, 1], offset: ?>>
  %cb = memref.cast %b : memref<4x8xf32, strided<[8, 1], offset: 16>> to memref<4x8xf32, strided<[8, 1], offset: ?>>
  call @kiln_kernel_0(%x, %ca, %cb, %y) : (memref<4x8xf32>, memref<4x8xf32, strided<[8, 1], offset: ?>>, memref<4x8xf32, strided<[8, 1], offset: ?>>, memref<4x8xf32>) -> ()
  return
}
func.func private @kiln_kernel_0(%x: memref<4x8xf32>, %w: memref<4x8xf32, strided<[8, 1], offset: ?>>, %r: memref<4x8xf32, strided<[8, 1], offset: ?>>, %y: memref<4x8xf32>) attributes {kiln.kernel} {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : memref<4x8xf32>) outs(%w : memref<4x8xf32, strided<[8, 1], offset: ?>>) {
  ^bb0(%in: f32, %out: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%r : memref<4x8xf32, strided<[8, 1], offset: ?>>) outs(%y : memref<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  }
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// Column blocks of one buffer, apart (a concat's parts, through a subview
// of a subview): one launch.
// CHECK-LABEL: func.func @apart(
// CHECK: gpu.launch_func @kiln_gpu::@kiln_kernel_0 blocks
// CHECK-NOT: gpu.launch_func
func.func @apart(%x: memref<4x8xf32>, %buf: memref<6x16xf32>, %y: memref<4x8xf32>) {
  %top = memref.subview %buf[0, 0] [4, 16] [1, 1] : memref<6x16xf32> to memref<4x16xf32, strided<[16, 1]>>
  %a = memref.subview %top[0, 0] [4, 8] [1, 1] : memref<4x16xf32, strided<[16, 1]>> to memref<4x8xf32, strided<[16, 1]>>
  %b = memref.subview %top[0, 8] [4, 8] [1, 1] : memref<4x16xf32, strided<[16, 1]>> to memref<4x8xf32, strided<[16, 1], offset: 8>>
  %ca = memref.cast %a : memref<4x8xf32, strided<[16, 1]>> to memref<4x8xf32, strided<[16, 1], offset: ?>>
  %cb = memref.cast %b : memref<4x8xf32, strided<[16, 1], offset: 8>> to memref<4x8xf32, strided<[16, 1], offset: ?>>
  call @kiln_kernel_0(%x, %ca, %cb, %y) : (memref<4x8xf32>, memref<4x8xf32, strided<[16, 1], offset: ?>>, memref<4x8xf32, strided<[16, 1], offset: ?>>, memref<4x8xf32>) -> ()
  return
}
func.func private @kiln_kernel_0(%x: memref<4x8xf32>, %w: memref<4x8xf32, strided<[16, 1], offset: ?>>, %r: memref<4x8xf32, strided<[16, 1], offset: ?>>, %y: memref<4x8xf32>) attributes {kiln.kernel} {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : memref<4x8xf32>) outs(%w : memref<4x8xf32, strided<[16, 1], offset: ?>>) {
  ^bb0(%in: f32, %out: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%r : memref<4x8xf32, strided<[16, 1], offset: ?>>) outs(%y : memref<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  }
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// One buffer passed twice (a call elsewhere passes distinct ones): every
// call of the kernel takes the same launches, so two.
// CHECK-LABEL: func.func @same_buffer(
// CHECK: gpu.launch_func @kiln_gpu::@kiln_kernel_0_0
// CHECK: gpu.launch_func @kiln_gpu::@kiln_kernel_0_1
// CHECK: gpu.launch_func @kiln_gpu::@kiln_kernel_0_0
// CHECK: gpu.launch_func @kiln_gpu::@kiln_kernel_0_1
func.func @same_buffer(%x: memref<4x8xf32>, %t: memref<4x8xf32>, %u: memref<4x8xf32>, %y: memref<4x8xf32>) {
  call @kiln_kernel_0(%x, %t, %u, %y) : (memref<4x8xf32>, memref<4x8xf32>, memref<4x8xf32>, memref<4x8xf32>) -> ()
  call @kiln_kernel_0(%x, %t, %t, %y) : (memref<4x8xf32>, memref<4x8xf32>, memref<4x8xf32>, memref<4x8xf32>) -> ()
  return
}
func.func private @kiln_kernel_0(%x: memref<4x8xf32>, %w: memref<4x8xf32>, %r: memref<4x8xf32>, %y: memref<4x8xf32>) attributes {kiln.kernel} {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : memref<4x8xf32>) outs(%w : memref<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%r : memref<4x8xf32>) outs(%y : memref<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  }
  return
}
