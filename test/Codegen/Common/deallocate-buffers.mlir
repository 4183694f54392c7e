// RUN: kiln-opt %s -kiln-deallocate-buffers -split-input-file | FileCheck %s

// Straight-line code: each buffer is freed right after the last use of it
// or of a view of it (here a use inside a loop nest's body, through a
// subview and a cast).
// CHECK-LABEL: func @straight_line
// CHECK: %[[A:.+]] = memref.alloc() : memref<8xf32>
// CHECK: %[[B:.+]] = memref.alloc() : memref<8xf32>
// CHECK: linalg.generic {{.*}} outs(%[[A]]
// CHECK: %[[VIEW:.+]] = memref.subview %[[A]][0] [4] [1]
// CHECK: %[[CAST:.+]] = memref.cast %[[VIEW]]
// CHECK: linalg.generic {{.*}} ins(%[[CAST]] : {{.*}}) outs(%[[OUT:.+]] : memref<4xf32>)
// CHECK: linalg.yield
// CHECK-NEXT: }
// CHECK-NEXT: memref.dealloc %[[A]]
// CHECK-NEXT: memref.copy %[[B]]
// CHECK-NEXT: memref.dealloc %[[B]]
// CHECK-NEXT: return
// CHECK-NOT: bufferization.dealloc
#map = affine_map<(d0) -> (d0)>
func.func @straight_line(%x: memref<8xf32>, %out: memref<4xf32>, %out2: memref<8xf32>) {
  %a = memref.alloc() : memref<8xf32>
  %b = memref.alloc() : memref<8xf32>
  linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%x : memref<8xf32>) outs(%a : memref<8xf32>) {
  ^bb0(%in: f32, %o: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  }
  %view = memref.subview %a[0] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1]>>
  %cast = memref.cast %view : memref<4xf32, strided<[1]>> to memref<4xf32, strided<[?], offset: ?>>
  linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%cast : memref<4xf32, strided<[?], offset: ?>>) outs(%out : memref<4xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  memref.copy %b, %out2 : memref<8xf32> to memref<8xf32>
  return
}

// -----

// A returned buffer is not straight-line ownership: upstream's ownership
// analysis runs (on the whole module) and keeps it alive for the caller.
// CHECK-LABEL: func @escapes
// CHECK: %[[A:.+]] = memref.alloc() : memref<8xf32>
// CHECK-NOT: memref.dealloc %[[A]]
// CHECK: return %[[A]]
// CHECK-LABEL: func @other
// CHECK: memref.dealloc
func.func @escapes() -> memref<8xf32> {
  %a = memref.alloc() : memref<8xf32>
  return %a : memref<8xf32>
}
func.func @other(%x: memref<8xf32>) {
  %a = memref.alloc() : memref<8xf32>
  memref.copy %x, %a : memref<8xf32> to memref<8xf32>
  return
}

// -----

// So does an allocation under control flow.
// CHECK-LABEL: func @conditional
// CHECK: scf.if
// CHECK: memref.alloc
// CHECK: memref.dealloc
func.func @conditional(%c: i1, %x: memref<8xf32>) {
  scf.if %c {
    %a = memref.alloc() : memref<8xf32>
    memref.copy %x, %a : memref<8xf32> to memref<8xf32>
  }
  return
}

// -----

// A buffer yielded out of a region aliases the region's result, which this
// pass does not follow: upstream's analysis takes the module.
// (Its canonicalizer makes the scf.if a select.)
// CHECK-LABEL: func @yielded
// CHECK: %[[A:.+]] = memref.alloc()
// CHECK: memref.copy
// CHECK-NEXT: memref.dealloc %[[A]]
func.func @yielded(%c: i1, %x: memref<8xf32>, %out: memref<8xf32>) {
  %a = memref.alloc() : memref<8xf32>
  %r = scf.if %c -> memref<8xf32> {
    scf.yield %a : memref<8xf32>
  } else {
    scf.yield %x : memref<8xf32>
  }
  memref.copy %r, %out : memref<8xf32> to memref<8xf32>
  return
}
