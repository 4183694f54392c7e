// RUN: kiln-opt %s -kiln-lower-to-linalg -split-input-file | FileCheck %s

// reduce_sum: fill with 0, linalg.reduce with addf, both tagged as one
// kernel.
// CHECK-LABEL: func @reduce_sum
// CHECK: %[[E:.+]] = bufferization.alloc_tensor() : tensor<8xf32>
// CHECK: %[[Z:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[F:.+]] = linalg.fill {kiln.kernel_id = [[ID:[0-9]+]] : i64} ins(%[[Z]] : f32) outs(%[[E]] : tensor<8xf32>)
// CHECK: linalg.reduce ins(%{{.*}} : tensor<4x8xf32>) outs(%[[F]] : tensor<8xf32>) dimensions = [0] {kiln.kernel_id = [[ID]] : i64}
// CHECK: arith.addf
func.func @reduce_sum(%x: tensor<4x8xf32>) -> tensor<8xf32> {
  %0 = kiln.reduce_sum %x, dims = [0] : tensor<4x8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// reduce_max: fill with -inf, maximumf (NaN propagates).
// CHECK-LABEL: func @reduce_max
// CHECK: %[[NINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK: linalg.fill {kiln.kernel_id = {{[0-9]+}} : i64} ins(%[[NINF]] : f32)
// CHECK: linalg.reduce ins(%{{.*}} : tensor<2x3x4xf32>) outs(%{{.*}} : tensor<3xf32>) dimensions = [0, 2]
// CHECK: arith.maximumf
func.func @reduce_max(%x: tensor<2x3x4xf32>) -> tensor<3xf32> {
  %0 = kiln.reduce_max %x, dims = [0, 2] : tensor<2x3x4xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// bf16 accumulates in f32 and rounds once at the end.
// CHECK-LABEL: func @reduce_bf16
// CHECK: arith.extf {{.*}} : bf16 to f32
// CHECK: linalg.reduce ins(%{{.*}} : tensor<4x8xf32>) outs(%{{.*}} : tensor<4xf32>) dimensions = [1]
// CHECK: arith.truncf {{.*}} : f32 to bf16
func.func @reduce_bf16(%x: tensor<4x8xbf16>) -> tensor<4xbf16> {
  %0 = kiln.reduce_sum %x, dims = [1] : tensor<4x8xbf16> -> tensor<4xbf16>
  return %0 : tensor<4xbf16>
}

// -----

// A dynamic kept dim takes its size from the operand.
// CHECK-LABEL: func @reduce_dynamic
// CHECK-SAME: (%[[X:.+]]: tensor<?x8xf32>)
// CHECK: %[[D:.+]] = tensor.dim %[[X]], %{{.*}} : tensor<?x8xf32>
// CHECK: bufferization.alloc_tensor(%[[D]]) : tensor<?xf32>
func.func @reduce_dynamic(%x: tensor<?x8xf32>) -> tensor<?xf32> {
  %0 = kiln.reduce_sum %x, dims = [1] : tensor<?x8xf32> -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
