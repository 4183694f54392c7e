// RUN: kiln-opt %s -kiln-elide-copies -split-input-file | FileCheck %s

// A kernel output copied into a slice of a fresh destination is written
// there directly.
// CHECK-LABEL: func @concat_parts
// CHECK: %[[D:.+]] = memref.alloc() : memref<4x16xf32>
// CHECK-DAG: %[[L:.+]] = memref.subview %[[D]][0, 0] [4, 8] [1, 1]
// CHECK-DAG: %[[R:.+]] = memref.subview %[[D]][0, 8] [4, 8] [1, 1]
// CHECK: linalg.generic {{.*}} outs(%[[L]], %[[R]] :
// CHECK-NOT: memref.copy
// CHECK-NOT: memref.alloc
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @concat_parts(%a: memref<4x8xf32>) -> memref<4x16xf32> {
  %d = memref.alloc() : memref<4x16xf32>
  %l = memref.subview %d[0, 0] [4, 8] [1, 1] : memref<4x16xf32> to memref<4x8xf32, strided<[16, 1]>>
  %t = memref.alloc() : memref<4x8xf32>
  linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%a : memref<4x8xf32>) outs(%l, %t : memref<4x8xf32, strided<[16, 1]>>, memref<4x8xf32>) {
  ^bb0(%x: f32, %o1: f32, %o2: f32):
    %e = math.exp %x : f32
    linalg.yield %x, %e : f32, f32
  }
  %r = memref.subview %d[0, 8] [4, 8] [1, 1] : memref<4x16xf32> to memref<4x8xf32, strided<[16, 1], offset: 8>>
  memref.copy %t, %r : memref<4x8xf32> to memref<4x8xf32, strided<[16, 1], offset: 8>>
  return %d : memref<4x16xf32>
}

// -----

// Not when the destination region is read in between: moving the write
// earlier would change what the reader sees.
// CHECK-LABEL: func @read_in_between
// CHECK: memref.copy %{{.*}}, %{{.*}} : memref<4x8xf32, strided<[16, 1]>> to memref<4x8xf32>
// CHECK: memref.copy %[[T:.+]], %[[V:.+]] : memref<1x16xf32> to memref<1x16xf32, strided<[16, 1]>>
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @read_in_between(%a: memref<1x16xf32>, %out: memref<4x8xf32>) -> memref<4x16xf32> {
  %d = memref.alloc() : memref<4x16xf32>
  %left = memref.subview %d[0, 0] [4, 8] [1, 1] : memref<4x16xf32> to memref<4x8xf32, strided<[16, 1]>>
  %t = memref.alloc() : memref<1x16xf32>
  linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%a : memref<1x16xf32>) outs(%t : memref<1x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  }
  memref.copy %left, %out : memref<4x8xf32, strided<[16, 1]>> to memref<4x8xf32>
  %row = memref.subview %d[0, 0] [1, 16] [1, 1] : memref<4x16xf32> to memref<1x16xf32, strided<[16, 1]>>
  memref.copy %t, %row : memref<1x16xf32> to memref<1x16xf32, strided<[16, 1]>>
  return %d : memref<4x16xf32>
}

// -----

// Copy-before-write bufferization copies a buffer before each write into
// it: a copy out of a buffer that is dead afterwards is forwarded (the
// matmul accumulates into the fill's buffer), and the forwarded chain
// leaves nothing to copy.
// CHECK-LABEL: func @forward_dead_source
// CHECK: %[[A:.+]] = memref.alloc() : memref<4x4xf32>
// CHECK: linalg.fill {{.*}} outs(%[[A]] :
// CHECK-NOT: memref.copy
// CHECK-NOT: memref.alloc
// CHECK: linalg.matmul {{.*}} outs(%[[A]] :
// CHECK: return %[[A]]
func.func @forward_dead_source(%x: memref<4x4xf32>) -> memref<4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<4x4xf32>
  linalg.fill ins(%zero : f32) outs(%a : memref<4x4xf32>)
  %b = memref.alloc() : memref<4x4xf32>
  memref.copy %a, %b : memref<4x4xf32> to memref<4x4xf32>
  linalg.matmul ins(%x, %x : memref<4x4xf32>, memref<4x4xf32>) outs(%b : memref<4x4xf32>)
  return %b : memref<4x4xf32>
}

// -----

// Not when the source is read after the copy, directly or through a view:
// the copy keeps the old contents for that reader.
// CHECK-LABEL: func @source_read_later
// CHECK-COUNT-2: memref.copy
func.func @source_read_later(%x: memref<4x4xf32>, %o: memref<2x4xf32>) -> memref<4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<4x4xf32>
  linalg.fill ins(%zero : f32) outs(%a : memref<4x4xf32>)
  %b = memref.alloc() : memref<4x4xf32>
  memref.copy %a, %b : memref<4x4xf32> to memref<4x4xf32>
  linalg.matmul ins(%x, %x : memref<4x4xf32>, memref<4x4xf32>) outs(%b : memref<4x4xf32>)
  %top = memref.subview %a[0, 0] [2, 4] [1, 1] : memref<4x4xf32> to memref<2x4xf32, strided<[4, 1]>>
  memref.copy %top, %o : memref<2x4xf32, strided<[4, 1]>> to memref<2x4xf32>
  return %b : memref<4x4xf32>
}

// -----

// Not when the target is used before the copy, nor out of a function
// argument (the caller's buffer must not be written).
// CHECK-LABEL: func @target_used_before
// CHECK: memref.copy %[[A:.+]], %[[B:.+]] :
// CHECK: memref.copy %{{.+}}, %[[C:.+]] :
// CHECK: return %[[B]], %[[C]]
func.func @target_used_before(%x: memref<4x4xf32>) -> (memref<4x4xf32>, memref<4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<4x4xf32>
  %b = memref.alloc() : memref<4x4xf32>
  linalg.fill ins(%zero : f32) outs(%b : memref<4x4xf32>)
  linalg.fill ins(%zero : f32) outs(%a : memref<4x4xf32>)
  memref.copy %a, %b : memref<4x4xf32> to memref<4x4xf32>
  %c = memref.alloc() : memref<4x4xf32>
  memref.copy %x, %c : memref<4x4xf32> to memref<4x4xf32>
  return %b, %c : memref<4x4xf32>, memref<4x4xf32>
}

// -----

// A destination allocated after the kernel (a concat of an earlier kernel's
// result) moves up, and the views the kernel writes of the temporary are
// taken of the destination's slice instead.
// CHECK-LABEL: func @later_destination
// CHECK: %[[D:.+]] = memref.alloc() : memref<6x8xf32>
// CHECK: %[[V:.+]] = memref.subview %[[D]][0, 0] [4, 8] [1, 1]
// CHECK: %[[L:.+]] = memref.subview %[[V]][0, 0] [4, 5] [1, 1]
// CHECK: linalg.generic {{.*}} outs(%[[L]] :
// CHECK: %[[R:.+]] = memref.subview %[[V]][0, 5] [4, 3] [1, 1]
// CHECK: linalg.generic {{.*}} outs(%[[R]] :
// CHECK-NOT: memref.copy
// CHECK: return %[[D]]
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @later_destination(%a: memref<4x5xf32>, %b: memref<4x3xf32>) -> memref<6x8xf32> {
  %t = memref.alloc() : memref<4x8xf32>
  %l = memref.subview %t[0, 0] [4, 5] [1, 1] : memref<4x8xf32> to memref<4x5xf32, strided<[8, 1]>>
  linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%a : memref<4x5xf32>) outs(%l : memref<4x5xf32, strided<[8, 1]>>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  }
  %r = memref.subview %t[0, 5] [4, 3] [1, 1] : memref<4x8xf32> to memref<4x3xf32, strided<[8, 1], offset: 5>>
  linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%b : memref<4x3xf32>) outs(%r : memref<4x3xf32, strided<[8, 1], offset: 5>>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  }
  %d = memref.alloc() : memref<6x8xf32>
  %top = memref.subview %d[0, 0] [4, 8] [1, 1] : memref<6x8xf32> to memref<4x8xf32, strided<[8, 1]>>
  memref.copy %t, %top : memref<4x8xf32> to memref<4x8xf32, strided<[8, 1]>>
  return %d : memref<6x8xf32>
}

// -----

// Not when a view of the temporary is read after the copy: that reader
// would see the destination, which a later op writes.
// CHECK-LABEL: func @temp_view_read_later
// CHECK: memref.copy %[[T:.+]], %{{.+}} : memref<4x8xf32> to memref<4x8xf32, strided<[16, 1]>>
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @temp_view_read_later(%a: memref<4x8xf32>, %o: memref<2x8xf32>) -> memref<4x16xf32> {
  %d = memref.alloc() : memref<4x16xf32>
  %t = memref.alloc() : memref<4x8xf32>
  linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%a : memref<4x8xf32>) outs(%t : memref<4x8xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  }
  %top = memref.subview %t[0, 0] [2, 8] [1, 1] : memref<4x8xf32> to memref<2x8xf32, strided<[8, 1]>>
  %left = memref.subview %d[0, 0] [4, 8] [1, 1] : memref<4x16xf32> to memref<4x8xf32, strided<[16, 1]>>
  memref.copy %t, %left : memref<4x8xf32> to memref<4x8xf32, strided<[16, 1]>>
  linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%a : memref<4x8xf32>) outs(%left : memref<4x8xf32, strided<[16, 1]>>) {
  ^bb0(%x: f32, %y: f32):
    %n = arith.negf %x : f32
    linalg.yield %n : f32
  }
  memref.copy %top, %o : memref<2x8xf32, strided<[8, 1]>> to memref<2x8xf32>
  return %d : memref<4x16xf32>
}

// -----

// A copy out of a collapse_shape of the temporary (a GEMM writing merged
// attention heads as [batch, rows, heads, cols] into its part of a concat):
// the kernel writes the matching expand_shape of the part instead.
// CHECK-LABEL: func @reshaped_part
// CHECK: %[[D:.+]] = memref.alloc() : memref<4x16xf32>
// CHECK: %[[PART:.+]] = memref.subview %[[D]][0, 8] [4, 8] [1, 1]
// CHECK: %[[E:.+]] = memref.expand_shape %[[PART]] {{\[}}[0, 1], [2, 3]] output_shape [2, 2, 2, 4] : memref<4x8xf32, strided<[16, 1], offset: 8>> into memref<2x2x2x4xf32, strided<[32, 16, 4, 1], offset: 8>>
// CHECK: linalg.generic {{.*}} outs(%[[E]] :
// CHECK: memref.copy %{{.+}}, %{{.+}} : memref<4x8xf32> to memref<4x8xf32, strided<[16, 1]>>
// CHECK-NOT: memref.copy
#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @reshaped_part(%a: memref<2x2x2x4xf32>, %b: memref<4x8xf32>) -> memref<4x16xf32> {
  %t = memref.alloc() : memref<2x2x2x4xf32>
  linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a : memref<2x2x2x4xf32>) outs(%t : memref<2x2x2x4xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  }
  %c = memref.collapse_shape %t [[0, 1], [2, 3]] : memref<2x2x2x4xf32> into memref<4x8xf32>
  %d = memref.alloc() : memref<4x16xf32>
  %left = memref.subview %d[0, 0] [4, 8] [1, 1] : memref<4x16xf32> to memref<4x8xf32, strided<[16, 1]>>
  memref.copy %b, %left : memref<4x8xf32> to memref<4x8xf32, strided<[16, 1]>>
  %right = memref.subview %d[0, 8] [4, 8] [1, 1] : memref<4x16xf32> to memref<4x8xf32, strided<[16, 1], offset: 8>>
  memref.copy %c, %right : memref<4x8xf32> to memref<4x8xf32, strided<[16, 1], offset: 8>>
  return %d : memref<4x16xf32>
}
