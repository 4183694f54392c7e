// RUN: kiln-opt %s -kiln-lower-to-linalg -split-input-file | FileCheck %s

// A collective becomes a call of the runtime on buffers: the operand as a
// read-only view, the result a buffer of its own; the callee's name holds
// the op's attributes, and the host program makes the call a collective step.
// CHECK-DAG: func.func private @kiln_rt_all_reduce_f32_r2_mean_d0_g0(memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>)
// CHECK-DAG: func.func private @kiln_rt_reduce_scatter_f64_r1_max_d0_g2(memref<?xf64, strided<[?], offset: ?>>, memref<?xf64, strided<[?], offset: ?>>)
// CHECK-LABEL: func.func @all_reduce
// CHECK: %[[IN:.+]] = bufferization.to_buffer %{{.*}} read_only : tensor<4x8xf32> to memref<4x8xf32, strided<[?, ?], offset: ?>>
// CHECK: %[[OUT:.+]] = memref.alloc() : memref<4x8xf32>
// CHECK: %[[A:.+]] = memref.cast %[[IN]]
// CHECK: %[[B:.+]] = memref.cast %[[OUT]]
// CHECK: call @kiln_rt_all_reduce_f32_r2_mean_d0_g0(%[[A]], %[[B]]) : (
// CHECK: bufferization.to_tensor %[[OUT]] restrict writable
func.func @all_reduce(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = kiln.all_reduce mean, %x group = 0 : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @reduce_scatter
// CHECK: memref.alloc() : memref<4xf64>
// CHECK: call @kiln_rt_reduce_scatter_f64_r1_max_d0_g2({{.*}}) : (
func.func @reduce_scatter(%x: tensor<8xf64>) -> tensor<4xf64> {
  %0 = kiln.reduce_scatter max, %x dim = 0 group = 2 : tensor<8xf64> -> tensor<4xf64>
  return %0 : tensor<4xf64>
}

// -----

// A dynamic dim other than the collective's comes from the operand.
// CHECK-LABEL: func.func @dynamic
// CHECK: %[[N:.+]] = tensor.dim %{{.*}}, %c0
// CHECK: memref.alloc(%[[N]]) : memref<?x16xf32>
// CHECK: call @kiln_rt_all_gather_f32_r2_sum_d1_g0(
func.func @dynamic(%x: tensor<?x8xf32>) -> tensor<?x16xf32> {
  %0 = kiln.all_gather %x dim = 1 group = 0 : tensor<?x8xf32> -> tensor<?x16xf32>
  return %0 : tensor<?x16xf32>
}
