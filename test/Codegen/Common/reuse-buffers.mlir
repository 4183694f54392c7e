// RUN: kiln-opt %s -split-input-file -kiln-reuse-buffers | FileCheck %s
// RUN: kiln-opt %s -split-input-file -kiln-reuse-buffers=reductions=true | FileCheck %s --check-prefix=RED
// RUN: kiln-opt %s -split-input-file -kiln-reuse-buffers -mlir-pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS
// STATS: (S) 3 kiln-reused-buffers

// A chain of element-by-element kernels over temporaries: each writes its
// result into the buffer it reads for the last time (one buffer for all
// three), freed after the last read. The first reads an argument, which
// is not a temporary; the copy out reads the last one.
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func private @negate(%x: memref<4x8xf32>, %out: memref<4x8xf32>) attributes {kiln.kernel} {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<4x8xf32>) outs(%out : memref<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.negf %a : f32
    linalg.yield %n : f32
  }
  return
}
// CHECK-LABEL: func @chain
// CHECK:      %[[A:.+]] = memref.alloc() : memref<4x8xf32>
// CHECK-NEXT: call @negate(%arg0, %[[A]])
// CHECK-NEXT: call @negate(%[[A]], %[[A]])
// CHECK-NEXT: call @negate(%[[A]], %[[A]])
// CHECK-NEXT: memref.copy %[[A]], %arg1
// CHECK-NEXT: memref.dealloc %[[A]]
// CHECK-NEXT: return
func.func @chain(%x: memref<4x8xf32>, %out: memref<4x8xf32>) {
  %a = memref.alloc() : memref<4x8xf32>
  call @negate(%x, %a) : (memref<4x8xf32>, memref<4x8xf32>) -> ()
  %b = memref.alloc() : memref<4x8xf32>
  call @negate(%a, %b) : (memref<4x8xf32>, memref<4x8xf32>) -> ()
  memref.dealloc %a : memref<4x8xf32>
  %c = memref.alloc() : memref<4x8xf32>
  call @negate(%b, %c) : (memref<4x8xf32>, memref<4x8xf32>) -> ()
  memref.dealloc %b : memref<4x8xf32>
  memref.copy %c, %out : memref<4x8xf32> to memref<4x8xf32>
  memref.dealloc %c : memref<4x8xf32>
  return
}

// -----

// The same elements under another shape: the result, [2, 4, 4], is a view
// of the [4, 8] buffer the kernel reads through a reshape.
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func private @negate3(%x: memref<2x4x4xf32>, %out: memref<2x4x4xf32>) attributes {kiln.kernel} {
  linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : memref<2x4x4xf32>) outs(%out : memref<2x4x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.negf %a : f32
    linalg.yield %n : f32
  }
  return
}
func.func private @fill(%out: memref<4x8xf32>) attributes {kiln.kernel}
func.func private @sink(%x: memref<2x4x4xf32>)
// CHECK-LABEL: func @reshaped
// CHECK:      %[[A:.+]] = memref.alloc() : memref<4x8xf32>
// CHECK-NEXT: call @fill(%[[A]])
// CHECK-NEXT: %[[F:.+]] = memref.collapse_shape %[[A]]
// CHECK-NEXT: %[[X:.+]] = memref.expand_shape %[[F]]
// CHECK-NEXT: %[[FLAT:.+]] = memref.collapse_shape %[[A]] {{\[}}[0, 1]] : memref<4x8xf32> into memref<32xf32>
// CHECK-NEXT: %[[B:.+]] = memref.expand_shape %[[FLAT]] {{\[}}[0, 1, 2]] output_shape [2, 4, 4] : memref<32xf32> into memref<2x4x4xf32>
// CHECK-NEXT: call @negate3(%[[X]], %[[B]])
// CHECK-NEXT: call @sink(%[[B]])
// CHECK-NEXT: memref.dealloc %[[A]]
// CHECK-NEXT: return
func.func @reshaped() {
  %a = memref.alloc() : memref<4x8xf32>
  call @fill(%a) : (memref<4x8xf32>) -> ()
  %f = memref.collapse_shape %a [[0, 1]] : memref<4x8xf32> into memref<32xf32>
  %x = memref.expand_shape %f [[0, 1, 2]] output_shape [2, 4, 4] : memref<32xf32> into memref<2x4x4xf32>
  %b = memref.alloc() : memref<2x4x4xf32>
  call @negate3(%x, %b) : (memref<2x4x4xf32>, memref<2x4x4xf32>) -> ()
  memref.dealloc %a : memref<4x8xf32>
  call @sink(%b) : (memref<2x4x4xf32>) -> ()
  memref.dealloc %b : memref<2x4x4xf32>
  return
}

// -----

// Not reused: the temporary is read again after the kernel (by @peek), the
// kernel reads it transposed, the kernel reads the result's old value, a
// runtime call (an external function) whatever it does, and a kernel whose
// generic runs in a loop.
#id = affine_map<(d0, d1) -> (d0, d1)>
#t = affine_map<(d0, d1) -> (d1, d0)>
func.func private @negate(%x: memref<4x4xf32>, %out: memref<4x4xf32>) attributes {kiln.kernel} {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<4x4xf32>) outs(%out : memref<4x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.negf %a : f32
    linalg.yield %n : f32
  }
  return
}
func.func private @transpose(%x: memref<4x4xf32>, %out: memref<4x4xf32>) attributes {kiln.kernel} {
  linalg.generic {indexing_maps = [#t, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<4x4xf32>) outs(%out : memref<4x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  return
}
func.func private @accumulate(%x: memref<4x4xf32>, %out: memref<4x4xf32>) attributes {kiln.kernel} {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<4x4xf32>) outs(%out : memref<4x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  }
  return
}
// Its generic in a loop: the second trip would read what the first wrote.
func.func private @twice(%x: memref<4x4xf32>, %out: memref<4x4xf32>) attributes {kiln.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  scf.for %i = %c0 to %c2 step %c1 {
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%x : memref<4x4xf32>) outs(%out : memref<4x4xf32>) {
    ^bb0(%a: f32, %o: f32):
      %s = arith.addf %a, %a : f32
      linalg.yield %s : f32
    }
  }
  return
}
func.func private @runtime(memref<4x4xf32>, memref<4x4xf32>)
func.func private @fill4(%out: memref<4x4xf32>) attributes {kiln.kernel}
func.func private @peek(%x: memref<4x4xf32>)
// CHECK-LABEL: func @kept
// CHECK-COUNT-6: memref.alloc()
// CHECK-NOT:  memref.alloc()
// CHECK:      return
func.func @kept() {
  %a = memref.alloc() : memref<4x4xf32>
  call @fill4(%a) : (memref<4x4xf32>) -> ()
  %b = memref.alloc() : memref<4x4xf32>
  call @negate(%a, %b) : (memref<4x4xf32>, memref<4x4xf32>) -> ()
  call @peek(%a) : (memref<4x4xf32>) -> ()
  memref.dealloc %a : memref<4x4xf32>
  %c = memref.alloc() : memref<4x4xf32>
  call @transpose(%b, %c) : (memref<4x4xf32>, memref<4x4xf32>) -> ()
  memref.dealloc %b : memref<4x4xf32>
  %d = memref.alloc() : memref<4x4xf32>
  call @accumulate(%c, %d) : (memref<4x4xf32>, memref<4x4xf32>) -> ()
  memref.dealloc %c : memref<4x4xf32>
  %e = memref.alloc() : memref<4x4xf32>
  call @runtime(%d, %e) : (memref<4x4xf32>, memref<4x4xf32>) -> ()
  memref.dealloc %d : memref<4x4xf32>
  call @peek(%e) : (memref<4x4xf32>) -> ()
  %f = memref.alloc() : memref<4x4xf32>
  call @twice(%e, %f) : (memref<4x4xf32>, memref<4x4xf32>) -> ()
  memref.dealloc %e : memref<4x4xf32>
  call @peek(%f) : (memref<4x4xf32>) -> ()
  memref.dealloc %f : memref<4x4xf32>
  return
}

// -----

// A kernel that also sums its result down the rows (an activation's
// gradient with its bias's): in place only with reductions=true, where
// its loops run the body once per point.
#map = affine_map<(d0, d1) -> (d1, d0)>
#col = affine_map<(d0, d1) -> (d0)>
func.func private @grad_and_bias(%x: memref<8x4xf32>, %out: memref<8x4xf32>, %bias: memref<4xf32>) attributes {kiln.kernel} {
  linalg.generic {indexing_maps = [#map, #map, #col], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x4xf32>) outs(%out, %bias : memref<8x4xf32>, memref<4xf32>) {
  ^bb0(%a: f32, %o: f32, %s: f32):
    %n = arith.negf %a : f32
    %t = arith.addf %s, %n : f32
    linalg.yield %n, %t : f32, f32
  }
  return
}
func.func private @fill84(%out: memref<8x4xf32>) attributes {kiln.kernel}
func.func private @sink84(%x: memref<8x4xf32>, %b: memref<4xf32>)
// CHECK-LABEL: func @with_reduction
// CHECK-COUNT-3: memref.alloc()
// RED-LABEL: func @with_reduction
// RED:        %[[A:.+]] = memref.alloc() : memref<8x4xf32>
// RED-NEXT:   call @fill84(%[[A]])
// RED-NEXT:   %[[S:.+]] = memref.alloc() : memref<4xf32>
// RED-NEXT:   call @grad_and_bias(%[[A]], %[[A]], %[[S]])
// RED-NOT:    memref.alloc()
// RED:        return
func.func @with_reduction() {
  %a = memref.alloc() : memref<8x4xf32>
  call @fill84(%a) : (memref<8x4xf32>) -> ()
  %b = memref.alloc() : memref<8x4xf32>
  %s = memref.alloc() : memref<4xf32>
  call @grad_and_bias(%a, %b, %s) : (memref<8x4xf32>, memref<8x4xf32>, memref<4xf32>) -> ()
  memref.dealloc %a : memref<8x4xf32>
  call @sink84(%b, %s) : (memref<8x4xf32>, memref<4xf32>) -> ()
  memref.dealloc %b : memref<8x4xf32>
  memref.dealloc %s : memref<4xf32>
  return
}
