// RUN: kiln-opt %s -split-input-file -kiln-schedule-donation=inputs=2 -kiln-plan-donation=inputs=2 | FileCheck %s
// RUN: kiln-opt %s -split-input-file -kiln-schedule-donation=inputs=2 -mlir-pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS

// An optimizer's step counter: `t + 1` is written by its own kernel, and
// the update after it recomputes it from t. The counter's kernel moves
// after the update, the last other reader of both its inputs, and then
// updates t in place (input 0 into result 0).
#s = affine_map<() -> ()>
#id = affine_map<(d0) -> (d0)>
func.func private @increment(%t: memref<f32>, %one: memref<f32>, %out: memref<f32>) attributes {kiln.kernel} {
  linalg.generic {indexing_maps = [#s, #s, #s], iterator_types = []}
      ins(%t, %one : memref<f32>, memref<f32>) outs(%out : memref<f32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %n = arith.addf %a, %b : f32
    linalg.yield %n : f32
  }
  return
}
func.func private @update(%t: memref<f32>, %one: memref<f32>, %out: memref<8xf32>) attributes {kiln.kernel} {
  linalg.generic {indexing_maps = [#id], iterator_types = ["parallel"]}
      outs(%out : memref<8xf32>) {
  ^bb0(%o: f32):
    %a = memref.load %t[] : memref<f32>
    %b = memref.load %one[] : memref<f32>
    %n = arith.addf %a, %b : f32
    linalg.yield %n : f32
  }
  return
}
// CHECK-LABEL: func @counter
// CHECK-SAME: kiln.donation = {first_writes = array<i64: 1, 0>, in_place = array<i64: 0, 0, 1, 0>, last_reads = array<i64: 1, 1>}
// CHECK-NEXT: call @update
// CHECK-NEXT: call @increment
func.func @counter(%t: memref<f32>, %one: memref<f32>, %new_t: memref<f32>, %p: memref<8xf32>) {
  call @increment(%t, %one, %new_t) : (memref<f32>, memref<f32>, memref<f32>) -> ()
  call @update(%t, %one, %p) : (memref<f32>, memref<f32>, memref<8xf32>) -> ()
  return
}

// Only @counter's update moves (in all the file).
// STATS: KilnScheduleDonation
// STATS-NEXT: (S) 1 kiln-moved-updates - in-place updates moved

// -----

// Left where they are: the inputs are read last by two different
// operations (moving after the later would make the other input's last
// read later); an operation in between reads the result; a temporary
// operand; a kernel that is not in place.
#id = affine_map<(d0) -> (d0)>
func.func private @add(%x: memref<8xf32>, %y: memref<8xf32>, %out: memref<8xf32>) attributes {kiln.kernel} {
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%x, %y : memref<8xf32>, memref<8xf32>) outs(%out : memref<8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %n = arith.addf %a, %b : f32
    linalg.yield %n : f32
  }
  return
}
func.func private @sink(memref<8xf32>)
// CHECK-LABEL: func @different_last_readers
// CHECK-NEXT: call @add(%arg0, %arg1, %arg2)
// CHECK-NEXT: call @sink(%arg0)
// CHECK-NEXT: call @sink(%arg1)
func.func @different_last_readers(%x: memref<8xf32>, %y: memref<8xf32>, %out: memref<8xf32>) {
  call @add(%x, %y, %out) : (memref<8xf32>, memref<8xf32>, memref<8xf32>) -> ()
  call @sink(%x) : (memref<8xf32>) -> ()
  call @sink(%y) : (memref<8xf32>) -> ()
  return
}
// CHECK-LABEL: func @result_read_between
// CHECK-NEXT: call @add(%arg0, %arg1, %arg2)
// CHECK-NEXT: call @sink(%arg2)
// CHECK-NEXT: call @add(%arg0, %arg1, %arg3)
func.func @result_read_between(%x: memref<8xf32>, %y: memref<8xf32>, %out: memref<8xf32>, %other: memref<8xf32>) {
  call @add(%x, %y, %out) : (memref<8xf32>, memref<8xf32>, memref<8xf32>) -> ()
  call @sink(%out) : (memref<8xf32>) -> ()
  call @add(%x, %y, %other) : (memref<8xf32>, memref<8xf32>, memref<8xf32>) -> ()
  return
}
// CHECK-LABEL: func @temporary
// CHECK: call @add(%arg0, %{{.*}}, %arg2)
// CHECK-NEXT: call @sink(%arg0)
func.func @temporary(%x: memref<8xf32>, %y: memref<8xf32>, %out: memref<8xf32>) {
  %t = memref.alloc() : memref<8xf32>
  call @add(%y, %y, %t) : (memref<8xf32>, memref<8xf32>, memref<8xf32>) -> ()
  call @add(%x, %t, %out) : (memref<8xf32>, memref<8xf32>, memref<8xf32>) -> ()
  call @sink(%x) : (memref<8xf32>) -> ()
  memref.dealloc %t : memref<8xf32>
  return
}
func.func private @reverse(%x: memref<8xf32>, %out: memref<8xf32>) attributes {kiln.kernel} {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (7 - d0)>, #id], iterator_types = ["parallel"]}
      ins(%x : memref<8xf32>) outs(%out : memref<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  return
}
// CHECK-LABEL: func @not_in_place
// CHECK-NEXT: call @reverse(%arg0, %arg2)
// CHECK-NEXT: call @sink(%arg0)
func.func @not_in_place(%x: memref<8xf32>, %y: memref<8xf32>, %out: memref<8xf32>) {
  call @reverse(%x, %out) : (memref<8xf32>, memref<8xf32>) -> ()
  call @sink(%x) : (memref<8xf32>) -> ()
  return
}
