// RUN: kiln-opt %s -split-input-file -kiln-map-kernels-to-gpu | FileCheck %s

// Kernels with dynamic sizes (issue 17): each nest is a grid-stride loop
// whose bound the kernel reads from its buffers (memref.dim), and each
// launch's grid is computed on the host from the call's buffers: the widest
// nest's elements (or vector groups) over the block size, at most
// max-blocks (8192 by default; 0 blocks for no elements: the runtime
// launches nothing). Where the innermost size is static (a batch of rows),
// the vector path of static kernels runs behind its alignment check.

// A bias added to a batch of rows: n x 8 elements, 2 vector groups per
// row, n read from %x's dim 0 in the kernel and from the call's %x at the
// launch.
// CHECK-LABEL: func.func @bias(
// CHECK-SAME: %[[X:[^:]+]]: memref<?x8xf32>, %[[B:[^:]+]]: memref<8xf32>, %[[Y:[^:]+]]: memref<?x8xf32>)
// CHECK: %[[N:.+]] = memref.dim %[[X]], %{{.+}} : memref<?x8xf32>
// CHECK: %[[ELEMENTS:.+]] = arith.muli %[[TWO:.+]], %[[N]] : index
// CHECK: %[[WORK:.+]] = arith.maxui %{{.+}}, %[[ELEMENTS]] : index
// CHECK: %[[THREADS:.+]] = arith.constant 256 : index
// CHECK: %[[CEIL:.+]] = arith.ceildivui %[[WORK]], %[[THREADS]] : index
// CHECK: %[[MAX:.+]] = arith.constant 8192 : index
// CHECK: %[[GRID:.+]] = arith.minui %[[CEIL]], %[[MAX]] : index
// CHECK: gpu.launch_func @kiln_gpu::@kiln_kernel_0 blocks in (%[[GRID]], %{{.+}}, %{{.+}}) threads in (
// CHECK: gpu.func @kiln_kernel_0(%[[A:[^:]+]]: memref<?x8xf32>, %{{[^:]+}}: memref<8xf32>, %{{[^:]+}}: memref<?x8xf32>)
// CHECK: %[[ROWS:.+]] = memref.dim %[[A]], %{{.+}} : memref<?x8xf32>
// CHECK: scf.if
// CHECK: %[[C2:.+]] = arith.constant 2 : index
// CHECK: %[[GROUPS:.+]] = arith.muli %[[C2]], %[[ROWS]] : index
// CHECK: scf.for %{{.+}} = %{{.+}} to %[[GROUPS]] step
// CHECK: vector.load %[[A]]
// CHECK: vector.store
// CHECK: } else {
// CHECK: %[[TOTAL:.+]] = arith.muli %{{.+}}, %[[ROWS]] : index
// CHECK: scf.for %[[I:.+]] = %{{.+}} to %[[TOTAL]] step
// CHECK: arith.remui %[[I]]
// CHECK: arith.divui %[[I]]
// CHECK: gpu.return
#rows = affine_map<(d0, d1) -> (d0, d1)>
#cols = affine_map<(d0, d1) -> (d1)>
func.func @bias(%x: memref<?x8xf32>, %b: memref<8xf32>, %y: memref<?x8xf32>) {
  call @kiln_kernel_0(%x, %b, %y) : (memref<?x8xf32>, memref<8xf32>, memref<?x8xf32>) -> ()
  return
}
func.func private @kiln_kernel_0(%x: memref<?x8xf32>, %b: memref<8xf32>, %y: memref<?x8xf32>) attributes {kiln.kernel} {
  linalg.generic {indexing_maps = [#rows, #cols, #rows], iterator_types = ["parallel", "parallel"]} ins(%x, %b : memref<?x8xf32>, memref<8xf32>) outs(%y : memref<?x8xf32>) {
  ^bb0(%in: f32, %bias: f32, %out: f32):
    %s = arith.addf %in, %bias : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A column sum over a dynamic batch (a bias gradient): 4 parallel outputs,
// each a sequential loop over the n rows, n read from %x.
// CHECK-LABEL: func.func @column_sum(
// CHECK: gpu.func @kiln_kernel_0(%[[A:[^:]+]]: memref<?x4xf32>,
// CHECK: %[[ROWS:.+]] = memref.dim %[[A]], %{{.+}} : memref<?x4xf32>
// CHECK: scf.for
// CHECK: scf.for %{{.+}} = %{{.+}} to %[[ROWS]] step %{{.+}} iter_args
// CHECK: arith.addf
#in = affine_map<(d0, d1) -> (d1, d0)>
#out = affine_map<(d0, d1) -> (d0)>
func.func @column_sum(%x: memref<?x4xf32>, %s: memref<4xf32>) {
  call @kiln_kernel_0(%x, %s) : (memref<?x4xf32>, memref<4xf32>) -> ()
  return
}
func.func private @kiln_kernel_0(%x: memref<?x4xf32>, %s: memref<4xf32>) attributes {kiln.kernel} {
  linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "reduction"]} ins(%x : memref<?x4xf32>) outs(%s : memref<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %t = arith.addf %in, %acc : f32
    linalg.yield %t : f32
  }
  return
}
