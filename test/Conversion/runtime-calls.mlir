// RUN: kiln-opt %s -split-input-file -kiln-lower-to-linalg=blas=true | FileCheck %s --check-prefix=TENSOR
// RUN: kiln-opt %s -split-input-file -kiln-lower-to-linalg=blas=true -one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" -kiln-linalg-to-runtime-calls | FileCheck %s

// With blas, f32/f64 matmuls keep their linalg.generic (the full
// description) and name the runtime entry point for their flags.
// TENSOR-LABEL: func @matmuls
// TENSOR: linalg.generic {{.*}}library_call = "kiln_rt_matmul_f32_nt"
// TENSOR: linalg.generic {{.*}}library_call = "kiln_rt_matmul_f32_tn"
// TENSOR: linalg.generic {{.*}}library_call = "kiln_rt_batch_matmul_f64_nn"

// After bufferization they become calls with fully dynamic strided memrefs,
// one declaration per entry point whatever the shapes.
// CHECK-DAG: func.func private @kiln_rt_matmul_f32_nt(memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>) attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func private @kiln_rt_matmul_f32_tn(
// CHECK-DAG: func.func private @kiln_rt_batch_matmul_f64_nn(memref<?x?x?xf64, strided<[?, ?, ?], offset: ?>>
// CHECK-LABEL: func @matmuls
// CHECK: linalg.fill
// CHECK: %[[A:.+]] = memref.cast %{{.*}} : memref<4x8xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
// CHECK: call @kiln_rt_matmul_f32_nt(%[[A]],
// CHECK: call @kiln_rt_matmul_f32_nt(
// CHECK: call @kiln_rt_matmul_f32_tn(
// CHECK: call @kiln_rt_batch_matmul_f64_nn(
// CHECK-NOT: linalg.generic
func.func @matmuls(%a: tensor<4x8xf32>, %b: tensor<16x8xf32>, %c: tensor<2x8xf32>, %d: tensor<2x3x4xf64>, %e: tensor<2x4x5xf64>, %f: tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4x2xf32>, tensor<8x16xf32>, tensor<2x3x5xf64>) {
  %0 = kiln.matmul %a, %b {transpose_b = true} : tensor<4x8xf32>, tensor<16x8xf32> -> tensor<4x16xf32>
  %1 = kiln.matmul %a, %c {transpose_b = true} : tensor<4x8xf32>, tensor<2x8xf32> -> tensor<4x2xf32>
  %2 = kiln.matmul %a, %f {transpose_a = true} : tensor<4x8xf32>, tensor<4x16xf32> -> tensor<8x16xf32>
  %3 = kiln.matmul %d, %e : tensor<2x3x4xf64>, tensor<2x4x5xf64> -> tensor<2x3x5xf64>
  return %0, %1, %2, %3 : tensor<4x16xf32>, tensor<4x2xf32>, tensor<8x16xf32>, tensor<2x3x5xf64>
}

// -----

// f16 stays a generated loop (it accumulates in f32).
// TENSOR-LABEL: func @half
// TENSOR-NOT: library_call
// CHECK-LABEL: func @half
// CHECK-NOT: call @kiln_rt
func.func @half(%a: tensor<4x8xf16>, %b: tensor<8x4xf16>) -> tensor<4x4xf16> {
  %0 = kiln.matmul %a, %b : tensor<4x8xf16>, tensor<8x4xf16> -> tensor<4x4xf16>
  return %0 : tensor<4x4xf16>
}
