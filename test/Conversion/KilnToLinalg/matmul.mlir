// RUN: kiln-opt %s -kiln-lower-to-linalg -split-input-file | FileCheck %s

// The transpose flags only change indexing maps: no transpose is made. The
// accumulator is a bufferization.alloc_tensor, which CSE does not merge, so
// that matmuls of one shape never share (and copy) a filled buffer.
// CHECK-DAG: #[[A:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[AT:.+]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-DAG: #[[B:.+]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[BT:.+]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[C:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func @matmul_2d
// CHECK-NOT: linalg.transpose
// CHECK: %[[ACC:.+]] = bufferization.alloc_tensor() : tensor<4x16xf32>
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[ACC]] : tensor<4x16xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[A]], #[[B]], #[[C]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<8x16xf32>)
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: linalg.generic {indexing_maps = [#[[A]], #[[BT]], #[[C]]], {{.*}} ins(%{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<16x8xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[AT]], #[[B]], #[[C]]], {{.*}} ins(%{{.*}}, %{{.*}} : tensor<8x4xf32>, tensor<8x16xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[AT]], #[[BT]], #[[C]]], {{.*}} ins(%{{.*}}, %{{.*}} : tensor<8x4xf32>, tensor<16x8xf32>)
// CHECK-NOT: linalg.transpose
func.func @matmul_2d(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %bt: tensor<16x8xf32>, %at: tensor<8x4xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>) {
  %0 = kiln.matmul %a, %b : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  %1 = kiln.matmul %a, %bt {transpose_b = true} : tensor<4x8xf32>, tensor<16x8xf32> -> tensor<4x16xf32>
  %2 = kiln.matmul %at, %b {transpose_a = true} : tensor<8x4xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  %3 = kiln.matmul %at, %bt {transpose_a = true, transpose_b = true} : tensor<8x4xf32>, tensor<16x8xf32> -> tensor<4x16xf32>
  return %0, %1, %2, %3 : tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>
}

// -----

// Batched matmul carries the batch dim through every map.
// CHECK-DAG: #[[A:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[BT:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
// CHECK-DAG: #[[C:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func @matmul_batched
// CHECK: linalg.generic {indexing_maps = [#[[A]], #[[BT]], #[[C]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
func.func @matmul_batched(%a: tensor<2x4x8xf32>, %b: tensor<2x3x8xf32>) -> tensor<2x4x3xf32> {
  %0 = kiln.matmul %a, %b {transpose_b = true} : tensor<2x4x8xf32>, tensor<2x3x8xf32> -> tensor<2x4x3xf32>
  return %0 : tensor<2x4x3xf32>
}

// -----

// f16 accumulates in f32.
// CHECK-LABEL: func @matmul_f16
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<4x4xf32>)
// CHECK: ^bb0(%[[X:.+]]: f16, %[[Y:.+]]: f16, %[[ACC:.+]]: f32):
// CHECK: arith.extf %[[X]] : f16 to f32
// CHECK: arith.truncf {{.*}} : f32 to f16
func.func @matmul_f16(%a: tensor<4x8xf16>, %b: tensor<8x4xf16>) -> tensor<4x4xf16> {
  %0 = kiln.matmul %a, %b : tensor<4x8xf16>, tensor<8x4xf16> -> tensor<4x4xf16>
  return %0 : tensor<4x4xf16>
}

// -----

// Dynamic M comes from the lhs.
// CHECK-LABEL: func @matmul_dynamic
// CHECK-SAME: (%[[A:.+]]: tensor<?x8xf32>
// CHECK: %[[M:.+]] = tensor.dim %[[A]], %{{.*}} : tensor<?x8xf32>
// CHECK: bufferization.alloc_tensor(%[[M]]) : tensor<?x16xf32>
func.func @matmul_dynamic(%a: tensor<?x8xf32>, %b: tensor<8x16xf32>) -> tensor<?x16xf32> {
  %0 = kiln.matmul %a, %b : tensor<?x8xf32>, tensor<8x16xf32> -> tensor<?x16xf32>
  return %0 : tensor<?x16xf32>
}

// -----

// A sum of products (a weight gradient over the steps of an unrolled
// network): each add is its matmul's epilogue, the contraction accumulating
// into the add's other operand (BLAS's beta = 1), so no add is left.
// CHECK-LABEL: func @accumulated_products
// CHECK-SAME: (%[[A:.+]]: tensor<8x4xf32>, %[[B:.+]]: tensor<8x16xf32>, %[[C:.+]]: tensor<8x4xf32>, %[[D:.+]]: tensor<8x16xf32>)
// CHECK: %[[FIRST:.+]] = linalg.generic {{.*}} ins(%[[A]], %[[B]] : tensor<8x4xf32>, tensor<8x16xf32>) outs(%{{.+}} : tensor<4x16xf32>)
// CHECK: %[[SUM:.+]] = linalg.generic {{.*}} ins(%[[C]], %[[D]] : tensor<8x4xf32>, tensor<8x16xf32>) outs(%[[FIRST]] : tensor<4x16xf32>)
// CHECK-NOT: arith.addf %in
// CHECK: return %[[SUM]]
func.func @accumulated_products(%a: tensor<8x4xf32>, %b: tensor<8x16xf32>, %c: tensor<8x4xf32>, %d: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %0 = kiln.matmul %a, %b {transpose_a = true} : tensor<8x4xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  %1 = kiln.matmul %c, %d {transpose_a = true} : tensor<8x4xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  %2 = kiln.add %0, %1 : tensor<4x16xf32>
  return %2 : tensor<4x16xf32>
}
