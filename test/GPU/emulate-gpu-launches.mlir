// RUN: kiln-opt %s -split-input-file -kiln-emulate-gpu-launches | FileCheck %s

// A launch of 2 blocks of 32 threads becomes a call of the kernel, now a
// kiln.kernel function that loops over the 64 threads, each a block of one:
// block_id is the loop index, thread_id 0, block_dim 1, grid_dim 64. A
// warp is one lane (subgroup_size 1, subgroup_reduce its operand), and a
// barrier waits for no one and is dropped. The gpu.module is gone.
// CHECK-LABEL: func.func @f
// CHECK-NOT: gpu.launch_func
// CHECK: call @kernel(%{{.+}}, %{{.+}}) : (memref<64xf32>, f32) -> ()
// CHECK-LABEL: func.func private @kernel
// CHECK-SAME: kiln.kernel
// CHECK-SAME: kiln.kernel_args = [memref<64xf32>, f32]
// CHECK-DAG: %[[C0:.+]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.+]] = arith.constant 1 : index
// CHECK-DAG: %[[C64:.+]] = arith.constant 64 : index
// CHECK: scf.for %[[T:.+]] = %[[C0]] to %[[C64]] step %[[C1]]
// CHECK: %[[BASE:.+]] = arith.muli %[[T]], %[[C1]] : index
// CHECK: %[[I:.+]] = arith.addi %[[BASE]], %[[C0]] : index
// CHECK-NOT: gpu.
// CHECK: memref.store %arg1, %arg0[%[[I]]] : memref<64xf32>
// CHECK-NOT: gpu.
module attributes {gpu.container_module} {
  func.func @f(%out: memref<64xf32>, %x: f32) {
    %c2 = arith.constant 2 : index
    %c32 = arith.constant 32 : index
    %c1 = arith.constant 1 : index
    gpu.launch_func @kiln_gpu::@kernel blocks in (%c2, %c1, %c1) threads in (%c32, %c1, %c1) args(%out : memref<64xf32>, %x : f32)
    return
  }
  gpu.module @kiln_gpu {
    gpu.func @kernel(%out: memref<64xf32>, %x: f32) kernel {
      %b = gpu.block_id x
      %t = gpu.thread_id x
      %n = gpu.block_dim x
      %g = gpu.grid_dim x
      %lanes = gpu.subgroup_size : index
      %base = arith.muli %b, %n : index
      %i = arith.addi %base, %t : index
      %r = gpu.subgroup_reduce add %x uniform : (f32) -> f32
      gpu.barrier
      memref.store %r, %out[%i] : memref<64xf32>
      gpu.return
    }
  }
}

// -----

// A grid computed at the launch (a kernel over a dynamic batch): the
// emulated kernel takes the grid's threads as one more argument, which the
// call computes from the launch's grid and block.
// CHECK-LABEL: func.func @dynamic(
// CHECK-SAME: %[[OUT:[^:]+]]: memref<?xf32>, %[[BLOCKS:[^:]+]]: index)
// CHECK: %[[THREADS:.+]] = arith.muli %[[BLOCKS]], %{{.+}} : index
// CHECK: call @kernel(%[[OUT]], %[[THREADS]]) : (memref<?xf32>, index) -> ()
// CHECK-LABEL: func.func private @kernel(
// CHECK-SAME: %{{[^:]+}}: memref<?xf32>, %[[N:[^:]+]]: index)
// CHECK: scf.for %{{.+}} = %{{.+}} to %[[N]] step
module attributes {gpu.container_module} {
  func.func @dynamic(%out: memref<?xf32>, %blocks: index) {
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    gpu.launch_func @kiln_gpu::@kernel blocks in (%blocks, %c1, %c1) threads in (%c32, %c1, %c1) args(%out : memref<?xf32>)
    return
  }
  gpu.module @kiln_gpu {
    gpu.func @kernel(%out: memref<?xf32>) kernel {
      %b = gpu.block_id x
      %t = gpu.thread_id x
      %n = gpu.block_dim x
      %base = arith.muli %b, %n : index
      %i = arith.addi %base, %t : index
      %v = arith.constant 1.0 : f32
      memref.store %v, %out[%i] : memref<?xf32>
      gpu.return
    }
  }
}
