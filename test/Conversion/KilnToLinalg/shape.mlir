// RUN: kiln-opt %s -kiln-lower-to-linalg -split-input-file | FileCheck %s

// CHECK-LABEL: func @constant
// CHECK: %[[C:.+]] = arith.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK: return %[[C]]
func.func @constant() -> tensor<2xf32> {
  %c = kiln.constant dense<[1.0, 2.0]> : tensor<2xf32>
  return %c : tensor<2xf32>
}

// -----

// broadcast_in_dim projects the operand onto the result dims it maps to; a
// size-1 dim that expands reads index 0.
// CHECK-DAG: #[[BIAS:.+]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-DAG: #[[ONE:.+]] = affine_map<(d0, d1, d2) -> (d0, 0, d2)>
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func @broadcast
// CHECK: linalg.generic {indexing_maps = [#[[BIAS]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%{{.*}} : tensor<8xf32>) outs(%{{.*}} : tensor<3x4x8xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[ONE]], #[[ID]]], {{.*}} ins(%{{.*}} : tensor<3x1x8xf32>) outs(%{{.*}} : tensor<3x4x8xf32>)
func.func @broadcast(%b: tensor<8xf32>, %c: tensor<3x1x8xf32>) -> (tensor<3x4x8xf32>, tensor<3x4x8xf32>) {
  %0 = kiln.broadcast_in_dim %b, dims = [2] : tensor<8xf32> -> tensor<3x4x8xf32>
  %1 = kiln.broadcast_in_dim %c, dims = [0, 1, 2] : tensor<3x1x8xf32> -> tensor<3x4x8xf32>
  return %0, %1 : tensor<3x4x8xf32>, tensor<3x4x8xf32>
}

// -----

// A dynamic result dim: a new dim takes the op's size operand; a dim the
// operand maps to takes the operand's own size (never read past it).
// CHECK-LABEL: func @broadcast_dynamic
// CHECK-SAME: (%[[B:.+]]: tensor<8xf32>, %[[X:.+]]: tensor<?x8xf32>, %[[N:.+]]: index, %[[M:.+]]: index)
// CHECK: %[[E:.+]] = bufferization.alloc_tensor(%[[N]]) : tensor<?x8xf32>
// CHECK: linalg.generic {{.*}} ins(%[[B]] : tensor<8xf32>) outs(%[[E]] : tensor<?x8xf32>)
// CHECK: %[[D:.+]] = tensor.dim %[[X]], %{{.*}} : tensor<?x8xf32>
// CHECK: %[[E2:.+]] = bufferization.alloc_tensor(%[[D]], %[[M]]) : tensor<?x8x?xf32>
// CHECK: linalg.generic {{.*}} ins(%[[X]] : tensor<?x8xf32>) outs(%[[E2]] : tensor<?x8x?xf32>)
func.func @broadcast_dynamic(%b: tensor<8xf32>, %x: tensor<?x8xf32>, %n: index, %m: index) -> (tensor<?x8xf32>, tensor<?x8x?xf32>) {
  %0 = kiln.broadcast_in_dim %b sizes(%n), dims = [1] : tensor<8xf32> -> tensor<?x8xf32>
  %1 = kiln.broadcast_in_dim %x sizes(%n, %m), dims = [0, 1] : tensor<?x8xf32> -> tensor<?x8x?xf32>
  return %0, %1 : tensor<?x8xf32>, tensor<?x8x?xf32>
}

// -----

// reshape goes through 1-D (0-D for one-element tensors): views, no copies.
// CHECK-LABEL: func @reshape
// CHECK: %[[F:.+]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1]] : tensor<4x6xf32> into tensor<24xf32>
// CHECK: tensor.expand_shape %[[F]] {{\[\[}}0, 1, 2]] output_shape [2, 3, 4] : tensor<24xf32> into tensor<2x3x4xf32>
// CHECK: tensor.collapse_shape %{{.*}} [] : tensor<1x1xf32> into tensor<f32>
// CHECK: tensor.expand_shape %{{.*}} [] output_shape [1] : tensor<f32> into tensor<1xf32>
func.func @reshape(%x: tensor<4x6xf32>, %s: tensor<1x1xf32>, %z: tensor<f32>) -> (tensor<2x3x4xf32>, tensor<f32>, tensor<1xf32>) {
  %0 = kiln.reshape %x : tensor<4x6xf32> -> tensor<2x3x4xf32>
  %1 = kiln.reshape %s : tensor<1x1xf32> -> tensor<f32>
  %2 = kiln.reshape %z : tensor<f32> -> tensor<1xf32>
  return %0, %1, %2 : tensor<2x3x4xf32>, tensor<f32>, tensor<1xf32>
}

// -----

// CHECK-LABEL: func @transpose
// CHECK: %[[E:.+]] = bufferization.alloc_tensor() : tensor<4x2x3xf32>
// CHECK: linalg.transpose ins(%{{.*}} : tensor<2x3x4xf32>) outs(%[[E]] : tensor<4x2x3xf32>) permutation = [2, 0, 1]
func.func @transpose(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %0 = kiln.transpose %x, perm = [2, 0, 1] : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  return %0 : tensor<4x2x3xf32>
}

// -----

// CHECK-LABEL: func @slice
// CHECK: tensor.extract_slice %{{.*}}[0, 8] [4, 8] [1, 1] : tensor<4x32xf32> to tensor<4x8xf32>
func.func @slice(%x: tensor<4x32xf32>) -> tensor<4x8xf32> {
  %0 = kiln.slice %x, offsets = [0, 8], sizes = [4, 8] : tensor<4x32xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// concat is one destination and one insert_slice per operand, never
// tensor.concat (which bufferizes to copies).
// CHECK-LABEL: func @concat
// CHECK-SAME: (%[[X:.+]]: tensor<4x8xf32>, %[[Y:.+]]: tensor<4x3xf32>, %[[Z:.+]]: tensor<4x5xf32>)
// CHECK: %[[E:.+]] = bufferization.alloc_tensor() : tensor<4x16xf32>
// CHECK: %[[I0:.+]] = tensor.insert_slice %[[X]] into %[[E]][0, 0] [4, 8] [1, 1]
// CHECK: %[[I1:.+]] = tensor.insert_slice %[[Y]] into %[[I0]][0, 8] [4, 3] [1, 1]
// CHECK: %[[I2:.+]] = tensor.insert_slice %[[Z]] into %[[I1]][0, 11] [4, 5] [1, 1]
// CHECK: return %[[I2]]
// CHECK-NOT: tensor.concat
func.func @concat(%x: tensor<4x8xf32>, %y: tensor<4x3xf32>, %z: tensor<4x5xf32>) -> tensor<4x16xf32> {
  %0 = kiln.concat %x, %y, %z dim = 1 : tensor<4x8xf32>, tensor<4x3xf32>, tensor<4x5xf32> -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// A dynamic concat dim is the sum of the operand sizes.
// CHECK-LABEL: func @concat_dynamic
// CHECK-SAME: (%[[X:.+]]: tensor<?x8xf32>, %[[Y:.+]]: tensor<2x8xf32>)
// CHECK: %[[D:.+]] = tensor.dim %[[X]]
// CHECK: %[[N:.+]] = arith.addi
// CHECK: %[[E:.+]] = bufferization.alloc_tensor(%{{.*}}) : tensor<?x8xf32>
// CHECK: %[[I0:.+]] = tensor.insert_slice %[[X]] into %[[E]][0, 0] [%{{.*}}, 8] [1, 1]
// CHECK: tensor.insert_slice %[[Y]] into %[[I0]][%{{.*}}, 0] [2, 8] [1, 1]
func.func @concat_dynamic(%x: tensor<?x8xf32>, %y: tensor<2x8xf32>) -> tensor<?x8xf32> {
  %0 = kiln.concat %x, %y dim = 0 : tensor<?x8xf32>, tensor<2x8xf32> -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

// A dynamic reshape collapses to 1-D and expands again; the one dynamic
// result dim is the element count divided by the static dims.
// CHECK-LABEL: func @reshape_dynamic
// CHECK-SAME: (%[[X:.+]]: tensor<?x8xf32>)
// CHECK: %[[F:.+]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1]] : tensor<?x8xf32> into tensor<?xf32>
// CHECK: %[[N:.+]] = tensor.dim %[[F]], %{{.*}} : tensor<?xf32>
// CHECK: %[[C4:.+]] = arith.constant 4 : index
// CHECK: %[[D:.+]] = arith.divui %[[N]], %[[C4]] : index
// CHECK: tensor.expand_shape %[[F]] {{\[\[}}0, 1]] output_shape [%[[D]], 4] : tensor<?xf32> into tensor<?x4xf32>
func.func @reshape_dynamic(%x: tensor<?x8xf32>) -> tensor<?x4xf32> {
  %0 = kiln.reshape %x : tensor<?x8xf32> -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
