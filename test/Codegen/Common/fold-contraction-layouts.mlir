// RUN: kiln-opt %s -split-input-file -kiln-lower-to-linalg=blas=true -canonicalize -kiln-fold-contraction-layouts -canonicalize | FileCheck %s

// Attention's head split (reshape, transpose, reshape) before QK^T: the
// batched GEMM reads the projections through an expand_shape view, with
// two batch loops (batch, head) and the head interleaved in each row.
// CHECK-DAG: #[[Q:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d2, d1, d4)>
// CHECK-DAG: #[[K:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d1, d4)>
// CHECK-DAG: #[[S:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func @split_heads
// CHECK-SAME: (%[[ARG_Q:.+]]: tensor<8x8xf32>, %[[ARG_K:.+]]: tensor<8x8xf32>)
// CHECK-NOT: linalg.transpose
// CHECK-DAG: %[[VQ:.+]] = tensor.expand_shape %[[ARG_Q]] {{\[}}[0, 1], [2, 3]] output_shape [2, 4, 2, 4]
// CHECK-DAG: %[[VK:.+]] = tensor.expand_shape %[[ARG_K]] {{\[}}[0, 1], [2, 3]] output_shape [2, 4, 2, 4]
// CHECK: %[[P:.+]] = linalg.generic {indexing_maps = [#[[Q]], #[[K]], #[[S]]], {{.*}}library_call = "kiln_rt_batch2_matmul_f32_nt"} ins(%[[VQ]], %[[VK]] : {{.*}}) outs({{.*}} : tensor<2x2x4x4xf32>)
// CHECK: tensor.collapse_shape %[[P]] {{\[}}[0, 1], [2], [3]] : tensor<2x2x4x4xf32> into tensor<4x4x4xf32>
func.func @split_heads(%q: tensor<8x8xf32>, %k: tensor<8x8xf32>) -> tensor<4x4x4xf32> {
  %q4 = kiln.reshape %q : tensor<8x8xf32> -> tensor<2x4x2x4xf32>
  %qt = kiln.transpose %q4, perm = [0, 2, 1, 3] : tensor<2x4x2x4xf32> -> tensor<2x2x4x4xf32>
  %q3 = kiln.reshape %qt : tensor<2x2x4x4xf32> -> tensor<4x4x4xf32>
  %k4 = kiln.reshape %k : tensor<8x8xf32> -> tensor<2x4x2x4xf32>
  %kt = kiln.transpose %k4, perm = [0, 2, 1, 3] : tensor<2x4x2x4xf32> -> tensor<2x2x4x4xf32>
  %k3 = kiln.reshape %kt : tensor<2x2x4x4xf32> -> tensor<4x4x4xf32>
  %s = kiln.matmul %q3, %k3 {transpose_b = true} : tensor<4x4x4xf32>, tensor<4x4x4xf32> -> tensor<4x4x4xf32>
  return %s : tensor<4x4x4xf32>
}

// -----

// The head merge after P V: the GEMM writes [batch, rows, heads, cols]
// itself, and the merged rows are a collapse_shape of that.
// CHECK-DAG: #[[O:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d2, d1, d3)>
// CHECK-LABEL: func @merge_heads
// CHECK-NOT: linalg.transpose
// CHECK: %[[O4:.+]] = linalg.generic {indexing_maps = [#{{.+}}, #{{.+}}, #[[O]]], {{.*}}library_call = "kiln_rt_batch2_matmul_f32_nn"} {{.*}} outs({{.*}} : tensor<2x4x2x4xf32>)
// CHECK: tensor.collapse_shape %[[O4]] {{\[}}[0, 1], [2, 3]] : tensor<2x4x2x4xf32> into tensor<8x8xf32>
func.func @merge_heads(%p: tensor<4x4x4xf32>, %v: tensor<4x4x4xf32>) -> tensor<8x8xf32> {
  %o = kiln.matmul %p, %v : tensor<4x4x4xf32>, tensor<4x4x4xf32> -> tensor<4x4x4xf32>
  %o4 = kiln.reshape %o : tensor<4x4x4xf32> -> tensor<2x2x4x4xf32>
  %ot = kiln.transpose %o4, perm = [0, 2, 1, 3] : tensor<2x2x4x4xf32> -> tensor<2x4x2x4xf32>
  %m = kiln.reshape %ot : tensor<2x4x2x4xf32> -> tensor<8x8xf32>
  return %m : tensor<8x8xf32>
}

// -----

// A transpose of the two matrix dims folds too (a plain 2-D matmul).
// CHECK-LABEL: func @matrix_transpose
// CHECK-NOT: linalg.transpose
// CHECK: library_call = "kiln_rt_matmul_f32_nn"
func.func @matrix_transpose(%a: tensor<4x6xf32>, %b: tensor<6x5xf32>) -> tensor<5x4xf32> {
  %c = kiln.matmul %a, %b : tensor<4x6xf32>, tensor<6x5xf32> -> tensor<4x5xf32>
  %t = kiln.transpose %c, perm = [1, 0] : tensor<4x5xf32> -> tensor<5x4xf32>
  return %t : tensor<5x4xf32>
}

// -----

// A transpose that would make the innermost dim a batch dim (no unit stride
// left in the matrix) stays a copy.
// CHECK-LABEL: func @innermost_to_batch
// CHECK: linalg.transpose
// CHECK: library_call = "kiln_rt_batch_matmul_f32_nn"
func.func @innermost_to_batch(%x: tensor<4x4x8xf32>, %y: tensor<8x4x4xf32>) -> tensor<8x4x4xf32> {
  %t = kiln.transpose %x, perm = [2, 0, 1] : tensor<4x4x8xf32> -> tensor<8x4x4xf32>
  %c = kiln.matmul %t, %y : tensor<8x4x4xf32>, tensor<8x4x4xf32> -> tensor<8x4x4xf32>
  return %c : tensor<8x4x4xf32>
}

// -----

// Three batch dims are more than the runtime takes: the transposed copy
// stays, and the batch loop is split once at most.
// CHECK-LABEL: func @three_batch_dims
// CHECK: linalg.transpose
// CHECK: library_call = "kiln_rt_batch_matmul_f32_nn"
func.func @three_batch_dims(%x: tensor<2x2x2x4x4xf32>, %y: tensor<8x4x4xf32>) -> tensor<8x4x4xf32> {
  %t = kiln.transpose %x, perm = [2, 1, 0, 3, 4] : tensor<2x2x2x4x4xf32> -> tensor<2x2x2x4x4xf32>
  %r = kiln.reshape %t : tensor<2x2x2x4x4xf32> -> tensor<8x4x4xf32>
  %c = kiln.matmul %r, %y : tensor<8x4x4xf32>, tensor<8x4x4xf32> -> tensor<8x4x4xf32>
  return %c : tensor<8x4x4xf32>
}
