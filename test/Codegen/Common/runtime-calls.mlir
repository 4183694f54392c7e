// RUN: kiln-opt %s -split-input-file -kiln-lower-to-linalg=blas=true | FileCheck %s --check-prefix=TENSOR
// RUN: kiln-opt %s -split-input-file -kiln-lower-to-linalg=blas=true -one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" -kiln-linalg-to-runtime-calls | FileCheck %s

// With blas, f32/f64 matmuls keep their linalg.generic (the full
// description) and name the runtime entry point for their flags.
// TENSOR-LABEL: func @matmuls
// TENSOR: linalg.generic {{.*}}library_call = "kiln_rt_matmul_f32_nt"
// TENSOR: linalg.generic {{.*}}library_call = "kiln_rt_matmul_f32_tn"
// TENSOR: linalg.generic {{.*}}library_call = "kiln_rt_batch_matmul_f64_nn"

// After bufferization they become calls with fully dynamic strided memrefs,
// one declaration per entry point whatever the shapes. The zero fill of each
// accumulator folds into the call: the `_set` entry points overwrite.
// CHECK-DAG: func.func private @kiln_rt_matmul_f32_nt_set(memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>) attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func private @kiln_rt_matmul_f32_tn_set(
// CHECK-DAG: func.func private @kiln_rt_batch_matmul_f64_nn_set(memref<?x?x?xf64, strided<[?, ?, ?], offset: ?>>
// CHECK-LABEL: func @matmuls
// CHECK-NOT: linalg.fill
// CHECK: %[[A:.+]] = memref.cast %{{.*}} : memref<4x8xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
// CHECK: call @kiln_rt_matmul_f32_nt_set(%[[A]],
// CHECK: call @kiln_rt_matmul_f32_nt_set(
// CHECK: call @kiln_rt_matmul_f32_tn_set(
// CHECK: call @kiln_rt_batch_matmul_f64_nn_set(
// CHECK-NOT: linalg.generic
func.func @matmuls(%a: tensor<4x8xf32>, %b: tensor<16x8xf32>, %c: tensor<2x8xf32>, %d: tensor<2x3x4xf64>, %e: tensor<2x4x5xf64>, %f: tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4x2xf32>, tensor<8x16xf32>, tensor<2x3x5xf64>) {
  %0 = kiln.matmul %a, %b {transpose_b = true} : tensor<4x8xf32>, tensor<16x8xf32> -> tensor<4x16xf32>
  %1 = kiln.matmul %a, %c {transpose_b = true} : tensor<4x8xf32>, tensor<2x8xf32> -> tensor<4x2xf32>
  %2 = kiln.matmul %a, %f {transpose_a = true} : tensor<4x8xf32>, tensor<4x16xf32> -> tensor<8x16xf32>
  %3 = kiln.matmul %d, %e : tensor<2x3x4xf64>, tensor<2x4x5xf64> -> tensor<2x3x5xf64>
  return %0, %1, %2, %3 : tensor<4x16xf32>, tensor<4x2xf32>, tensor<8x16xf32>, tensor<2x3x5xf64>
}

// -----

// f16 (and bf16) products are calls too, into an f32 accumulator that an
// elementwise kernel rounds afterwards.
// TENSOR-LABEL: func @half
// TENSOR: library_call = "kiln_rt_matmul_f16_nn"{{.*}} ins(%{{.*}}, %{{.*}} : tensor<4x8xf16>, tensor<8x4xf16>) outs(%{{.*}} : tensor<4x4xf32>)
// TENSOR: arith.truncf {{.*}} : f32 to f16
// CHECK-LABEL: func @half
// CHECK: call @kiln_rt_matmul_f16_nn_set(
func.func @half(%a: tensor<4x8xf16>, %b: tensor<8x4xf16>) -> tensor<4x4xf16> {
  %0 = kiln.matmul %a, %b : tensor<4x8xf16>, tensor<8x4xf16> -> tensor<4x4xf16>
  return %0 : tensor<4x4xf16>
}

// -----

// An accumulator that is not a fresh zero fill keeps the accumulating entry.
// TENSOR-LABEL: func @accumulate
// CHECK-LABEL: func @accumulate
// CHECK: linalg.fill
// CHECK: memref.copy
// CHECK: call @kiln_rt_matmul_f32_nn(
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @accumulate(%x: memref<4x8xf32>, %y: memref<8x4xf32>, %c: memref<4x4xf32>, %init: memref<4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<4x4xf32>)
  memref.copy %init, %c : memref<4x4xf32> to memref<4x4xf32>
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"], library_call = "kiln_rt_matmul_f32_nn"} ins(%x, %y : memref<4x8xf32>, memref<8x4xf32>) outs(%c : memref<4x4xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Maps that permute the entry point's dim order (from
// -kiln-fold-contraction-layouts): each such operand is passed as a
// memref.transpose view in [batch..., rows, cols] order; two batch loops
// call the batch2 entry point.
// TENSOR-LABEL: func @permuted_heads
// CHECK-LABEL: func @permuted_heads
// CHECK-SAME: (%[[Q:.+]]: memref<2x4x2x4xf32>, %[[K:.+]]: memref<2x4x2x4xf32>, %[[S:.+]]: memref<2x4x2x4xf32>)
// CHECK: %[[TQ:.+]] = memref.transpose %[[Q]] (d0, d1, d2, d3) -> (d0, d2, d1, d3) : memref<2x4x2x4xf32> to memref<2x2x4x4xf32, strided<[32, 4, 8, 1]>>
// CHECK: %[[CQ:.+]] = memref.cast %[[TQ]]
// CHECK: %[[TK:.+]] = memref.transpose %[[K]] (d0, d1, d2, d3) -> (d0, d2, d1, d3)
// CHECK: %[[TS:.+]] = memref.transpose %[[S]] (d0, d1, d2, d3) -> (d0, d2, d1, d3)
// CHECK: call @kiln_rt_batch2_matmul_f32_nt(%[[CQ]], %{{.+}}, %{{.+}}) : (memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>
#q = affine_map<(d0, d1, d2, d3, d4) -> (d0, d2, d1, d4)>
#k = affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d1, d4)>
#s = affine_map<(d0, d1, d2, d3, d4) -> (d0, d2, d1, d3)>
func.func @permuted_heads(%q: memref<2x4x2x4xf32>, %k: memref<2x4x2x4xf32>, %s: memref<2x4x2x4xf32>) {
  linalg.generic {indexing_maps = [#q, #k, #s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"], library_call = "kiln_rt_batch2_matmul_f32_nt"} ins(%q, %k : memref<2x4x2x4xf32>, memref<2x4x2x4xf32>) outs(%s : memref<2x4x2x4xf32>) {
  ^bb0(%p: f32, %r: f32, %acc: f32):
    %m = arith.mulf %p, %r : f32
    %a = arith.addf %acc, %m : f32
    linalg.yield %a : f32
  }
  return
}
