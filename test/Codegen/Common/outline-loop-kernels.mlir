// With `loops` (the CPU pipeline's), a host loop over loop nests that only
// computes indices, loads them and takes views (kiln.scatter_add's ordered
// adds) becomes one kernel with its nests; without, each nest is a kernel
// called from the host loop. A loop that does anything else stays.
// RUN: kiln-opt %s -split-input-file -kiln-outline-kernels=loops=true | FileCheck %s
// RUN: kiln-opt %s -split-input-file -kiln-outline-kernels | FileCheck %s --check-prefix=HOST

#id = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @scatter
// CHECK-SAME: (%[[IDS:.+]]: memref<4xi64>, %[[U:.+]]: memref<4x8xf32>, %[[T:.+]]: memref<5x8xf32>)
// CHECK-NOT: scf.for
// CHECK:     call @kiln_kernel_0(%[[IDS]], %[[T]], %[[U]])
// CHECK-NOT: scf.for
// CHECK:     return
// CHECK-LABEL: func.func private @kiln_kernel_0
// CHECK-SAME: (%{{.+}}: memref<4xi64>, %{{.+}}: memref<5x8xf32>, %{{.+}}: memref<4x8xf32>)
// CHECK-SAME: kiln.kernel
// CHECK:     scf.for
// CHECK:       memref.load
// CHECK:       scf.if
// CHECK:         linalg.generic
// CHECK-NOT:     kiln.kernel_id
// HOST-LABEL: func.func @scatter
// HOST:       scf.for
// HOST:         call @kiln_kernel_0(
func.func @scatter(%ids: memref<4xi64>, %u: memref<4x8xf32>, %t: memref<5x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  scf.for %j = %c0 to %c4 step %c1 {
    %raw = memref.load %ids[%j] : memref<4xi64>
    %p = arith.index_cast %raw : i64 to index
    %ge = arith.cmpi sge, %p, %c0 : index
    %lt = arith.cmpi slt, %p, %c5 : index
    %in = arith.andi %ge, %lt : i1
    scf.if %in {
      %row = memref.subview %t[%p, 0] [1, 8] [1, 1] : memref<5x8xf32> to memref<8xf32, strided<[1], offset: ?>>
      %src = memref.subview %u[%j, 0] [1, 8] [1, 1] : memref<4x8xf32> to memref<8xf32, strided<[1], offset: ?>>
      linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
          ins(%src : memref<8xf32, strided<[1], offset: ?>>)
          outs(%row : memref<8xf32, strided<[1], offset: ?>>) attrs = {kiln.kernel_id = 3 : i64} {
      ^bb0(%a: f32, %b: f32):
        %s = arith.addf %a, %b : f32
        linalg.yield %s : f32
      }
    }
  }
  return
}

// -----

// A loop that also allocates stays on the host; its nest is a kernel.
#id = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @allocating
// CHECK:       scf.for
// CHECK:         memref.alloc
// CHECK:         call @kiln_kernel_0(
func.func @allocating(%u: memref<8xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %j = %c0 to %n step %c1 {
    %tmp = memref.alloc() : memref<8xf32>
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
        ins(%u : memref<8xf32>) outs(%tmp : memref<8xf32>) {
    ^bb0(%a: f32, %b: f32):
      linalg.yield %a : f32
    }
    memref.dealloc %tmp : memref<8xf32>
  }
  return
}

// -----

// A loop that yields a value stays on the host: its result has users there.
#id = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @yielding
// CHECK:       %[[N:.+]] = scf.for
// CHECK:         call @kiln_kernel_0(
// CHECK:       return %[[N]]
func.func @yielding(%u: memref<8xf32>, %t: memref<8xf32>) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %n = scf.for %j = %c0 to %c4 step %c1 iter_args(%k = %c0) -> (index) {
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
        ins(%u : memref<8xf32>) outs(%t : memref<8xf32>) {
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %b : f32
      linalg.yield %s : f32
    }
    %next = arith.addi %k, %c1 : index
    scf.yield %next : index
  }
  return %n : index
}
