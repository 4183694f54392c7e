// RUN: kiln-opt %s -split-input-file -kiln-plan-donation=inputs=2 | FileCheck %s

// An optimizer's update: one kernel reads p and g and writes the new p
// element by element, so p may be overwritten in place (input 0 into
// result 0); g may too (same kernel, same map). Input 1 is read last by
// the same call.
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func private @update(%p: memref<4x8xf32>, %g: memref<4x8xf32>, %out: memref<4x8xf32>) attributes {kiln.kernel} {
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p, %g : memref<4x8xf32>, memref<4x8xf32>) outs(%out : memref<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %d = arith.subf %a, %b : f32
    linalg.yield %d : f32
  }
  return
}
// CHECK-LABEL: func @sgd
// CHECK-SAME: kiln.donation = {first_writes = array<i64: 0>, in_place = array<i64: 0, 0, 1, 0>, last_reads = array<i64: 0, 0>}
func.func @sgd(%p: memref<4x8xf32>, %g: memref<4x8xf32>, %out: memref<4x8xf32>) {
  call @update(%p, %g, %out) : (memref<4x8xf32>, memref<4x8xf32>, memref<4x8xf32>) -> ()
  return
}

// -----

// Positions count every operation of the block. Input 0 is read again (by
// @sink, through a view) after the result's first write: it may not take
// the result. Input 1 is read before: it may.
#id = affine_map<(d0) -> (d0)>
func.func private @negate(%x: memref<8xf32>, %out: memref<8xf32>) attributes {kiln.kernel} {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<8xf32>) outs(%out : memref<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.negf %a : f32
    linalg.yield %n : f32
  }
  return
}
// CHECK-LABEL: func @read_after
// CHECK-SAME: kiln.donation = {first_writes = array<i64: 2>, in_place = array<i64>, last_reads = array<i64: 6, 1>}
func.func @read_after(%x: memref<8xf32>, %y: memref<8xf32>, %out: memref<8xf32>) {
  %t = memref.alloc() : memref<8xf32>
  call @negate(%y, %t) : (memref<8xf32>, memref<8xf32>) -> ()
  call @negate(%t, %out) : (memref<8xf32>, memref<8xf32>) -> ()
  %cast = memref.cast %x : memref<8xf32> to memref<8xf32, strided<[1], offset: ?>>
  %v = memref.subview %cast[0] [4] [1] : memref<8xf32, strided<[1], offset: ?>> to memref<4xf32, strided<[1], offset: ?>>
  memref.dealloc %t : memref<8xf32>
  call @sink(%v) : (memref<4xf32, strided<[1], offset: ?>>) -> ()
  return
}
func.func private @sink(memref<4xf32, strided<[1], offset: ?>>)

// -----

// Not in place: a transposed read (element [i, j] written from [j, i]), a
// kernel that reads the result's old value, and a runtime call.
#id = affine_map<(d0, d1) -> (d0, d1)>
#t = affine_map<(d0, d1) -> (d1, d0)>
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
func.func private @kiln_rt_matmul(memref<4x4xf32>, memref<4x4xf32>)
// CHECK-LABEL: func @not_in_place
// CHECK-SAME: kiln.donation = {first_writes = array<i64: 0, 1, 2>, in_place = array<i64>, last_reads = array<i64: 0, 2>}
func.func @not_in_place(%x: memref<4x4xf32>, %y: memref<4x4xf32>, %a: memref<4x4xf32>, %b: memref<4x4xf32>, %c: memref<4x4xf32>) {
  call @transpose(%x, %a) : (memref<4x4xf32>, memref<4x4xf32>) -> ()
  call @accumulate(%y, %b) : (memref<4x4xf32>, memref<4x4xf32>) -> ()
  call @kiln_rt_matmul(%y, %c) : (memref<4x4xf32>, memref<4x4xf32>) -> ()
  return
}

// -----

// A copy of a whole input into a whole result is in place; a loop that
// carries an input's buffer hides its later uses: it counts as read after
// every operation (position 6, the block's size).
// CHECK-LABEL: func @copy_and_loop
// CHECK-SAME: kiln.donation = {first_writes = array<i64: 0, 4>, in_place = array<i64: 0, 0>, last_reads = array<i64: 0, 6>}
func.func @copy_and_loop(%x: memref<8xf32>, %y: memref<8xf32>, %a: memref<8xf32>, %b: memref<8xf32>) {
  memref.copy %x, %a : memref<8xf32> to memref<8xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %c1 step %c1 iter_args(%m = %y) -> (memref<8xf32>) {
    scf.yield %m : memref<8xf32>
  }
  memref.copy %r, %b : memref<8xf32> to memref<8xf32>
  return
}

// -----

// memref.transpose is a view (though not a ViewLikeOpInterface op): the
// input's last read is the op that reads its transpose, and nothing is
// hidden. (Taken for an unknown op, it had kept every weight matrix a
// backward matmul reads transposed from being donated.)
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func private @copy(%x: memref<8x4xf32>, %out: memref<8x4xf32>) attributes {kiln.kernel} {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<8x4xf32>) outs(%out : memref<8x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  return
}
func.func private @read(memref<4x8xf32, strided<[1, 4]>>)
// CHECK-LABEL: func @transposed
// CHECK-SAME: kiln.donation = {first_writes = array<i64: 2>, in_place = array<i64: 1, 0>, last_reads = array<i64: 1, 2>}
func.func @transposed(%x: memref<8x4xf32>, %y: memref<8x4xf32>, %out: memref<8x4xf32>) {
  %t = memref.transpose %x (d0, d1) -> (d1, d0) : memref<8x4xf32> to memref<4x8xf32, strided<[1, 4]>>
  call @read(%t) : (memref<4x8xf32, strided<[1, 4]>>) -> ()
  call @copy(%y, %out) : (memref<8x4xf32>, memref<8x4xf32>) -> ()
  return
}
