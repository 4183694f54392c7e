// RUN: kiln-opt %s -split-input-file -kiln-strided-copies-to-linalg | FileCheck %s
// RUN: kiln-opt %s -split-input-file -kiln-gpu-pipeline | FileCheck %s --check-prefix=GPU

// A copy out of (or into) a strided view becomes a linalg.copy, which the
// GPU pipeline runs as a kernel; copies between contiguous blocks (a
// row-major subview among them) stay memref.copy, one device memcpy.

// CHECK-LABEL: func.func @strided(
// CHECK: %[[VIEW:.+]] = memref.subview
// CHECK: linalg.copy ins(%[[VIEW]] : memref<4x2xf32, strided<[8, 1], offset: 2>>) outs(%{{.+}} : memref<4x2xf32>)
// CHECK-NOT: memref.copy
func.func @strided(%x: memref<4x8xf32>, %y: memref<4x2xf32>) {
  %v = memref.subview %x[0, 2] [4, 2] [1, 1] : memref<4x8xf32> to memref<4x2xf32, strided<[8, 1], offset: 2>>
  memref.copy %v, %y : memref<4x2xf32, strided<[8, 1], offset: 2>> to memref<4x2xf32>
  return
}

// -----

// CHECK-LABEL: func.func @contiguous(
// CHECK: memref.copy %{{.+}}, %{{.+}} : memref<2x8xf32, strided<[8, 1], offset: 16>> to memref<2x8xf32>
// CHECK: memref.copy %{{.+}}, %{{.+}} : memref<1x8xf32, strided<[99, 1]>> to memref<1x8xf32>
// CHECK-NOT: linalg.copy
func.func @contiguous(%x: memref<4x8xf32>, %y: memref<2x8xf32>, %r: memref<1x8xf32, strided<[99, 1]>>, %s: memref<1x8xf32>) {
  %v = memref.subview %x[2, 0] [2, 8] [1, 1] : memref<4x8xf32> to memref<2x8xf32, strided<[8, 1], offset: 16>>
  memref.copy %v, %y : memref<2x8xf32, strided<[8, 1], offset: 16>> to memref<2x8xf32>
  memref.copy %r, %s : memref<1x8xf32, strided<[99, 1]>> to memref<1x8xf32>
  return
}

// -----

// Identity layouts are contiguous whatever their dynamic sizes: a memcpy.
// CHECK-LABEL: func.func @identity_dynamic(
// CHECK: memref.copy %{{.+}}, %{{.+}} : memref<5x?xf32> to memref<5x?xf32>
// CHECK: memref.copy %{{.+}}, %{{.+}} : memref<?x?x3xf32> to memref<?x?x3xf32>
// CHECK-NOT: linalg.copy
func.func @identity_dynamic(%a: memref<5x?xf32>, %b: memref<5x?xf32>, %c: memref<?x?x3xf32>, %d: memref<?x?x3xf32>) {
  memref.copy %a, %b : memref<5x?xf32> to memref<5x?xf32>
  memref.copy %c, %d : memref<?x?x3xf32> to memref<?x?x3xf32>
  return
}

// -----

// Through the GPU pipeline, a column slice is a kernel launch.
// GPU-LABEL: func.func @slice_columns(
// GPU-NOT: memref.copy
// GPU: gpu.launch_func @kiln_gpu::@kiln_kernel_0
// GPU-NOT: memref.copy
// GPU: return
func.func @slice_columns(%x: tensor<64x100xf32>) -> tensor<64x30xf32> {
  %s = kiln.slice %x, offsets = [0, 10], sizes = [64, 30] : tensor<64x100xf32> -> tensor<64x30xf32>
  return %s : tensor<64x30xf32>
}
