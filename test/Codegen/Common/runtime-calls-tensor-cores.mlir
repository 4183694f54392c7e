// RUN: kiln-opt %s -split-input-file -kiln-lower-to-linalg="blas=true tensor-core-calls=true" | FileCheck %s --check-prefix=TENSOR
// RUN: kiln-opt %s -split-input-file -kiln-lower-to-linalg="blas=true tensor-core-calls=true" -one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" -kiln-linalg-to-runtime-calls | FileCheck %s
// RUN: kiln-opt %s -split-input-file -kiln-lower-to-linalg=blas=true | FileCheck %s --check-prefix=CPU

// For a runtime whose products honour a precision (cuBLAS), an f32
// matmul's precision is in its call's name; f16 and bf16 products are
// calls too, whose result is the f32 accumulator (rounded afterwards).
// TENSOR-LABEL: func @precisions
// TENSOR: linalg.generic {{.*}}library_call = "kiln_rt_matmul_f32_nn"
// TENSOR: linalg.generic {{.*}}library_call = "kiln_rt_matmul_f32tf32_nt"
// TENSOR: linalg.generic {{.*}}library_call = "kiln_rt_batch_matmul_f32bf16_nn"
// TENSOR: linalg.generic {{.*}}library_call = "kiln_rt_matmul_f64_nn"
// The CPU computes f32 products in f32 whatever they allow.
// CPU-LABEL: func @precisions
// CPU: library_call = "kiln_rt_matmul_f32_nn"
// CPU: library_call = "kiln_rt_matmul_f32_nt"
// CPU: library_call = "kiln_rt_batch_matmul_f32_nn"
// CPU: library_call = "kiln_rt_matmul_f64_nn"
// CHECK-LABEL: func @precisions
// CHECK: call @kiln_rt_matmul_f32_nn_set(
// CHECK: call @kiln_rt_matmul_f32tf32_nt_set(
// CHECK: call @kiln_rt_batch_matmul_f32bf16_nn_set(
// CHECK: call @kiln_rt_matmul_f64_nn_set(
func.func @precisions(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %bt: tensor<16x8xf32>, %c: tensor<2x4x8xf32>, %d: tensor<2x8x3xf32>, %e: tensor<3x3xf64>) -> (tensor<4x16xf32>, tensor<4x16xf32>, tensor<2x4x3xf32>, tensor<3x3xf64>) {
  %0 = kiln.matmul %a, %b {precision = #kiln<precision highest>} : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  %1 = kiln.matmul %a, %bt {transpose_b = true, precision = #kiln<precision high>} : tensor<4x8xf32>, tensor<16x8xf32> -> tensor<4x16xf32>
  %2 = kiln.matmul %c, %d {precision = #kiln<precision medium>} : tensor<2x4x8xf32>, tensor<2x8x3xf32> -> tensor<2x4x3xf32>
  %3 = kiln.matmul %e, %e : tensor<3x3xf64>, tensor<3x3xf64> -> tensor<3x3xf64>
  return %0, %1, %2, %3 : tensor<4x16xf32>, tensor<4x16xf32>, tensor<2x4x3xf32>, tensor<3x3xf64>
}

// -----

// TENSOR-LABEL: func @narrow
// TENSOR: %[[P:.+]] = linalg.generic {{.*}}library_call = "kiln_rt_matmul_bf16_tn"{{.*}} ins(%{{.*}}, %{{.*}} : tensor<8x4xbf16>, tensor<8x4xbf16>) outs(%{{.*}} : tensor<4x4xf32>)
// TENSOR: linalg.generic {{.*}} ins(%[[P]] : tensor<4x4xf32>) outs(%{{.*}} : tensor<4x4xbf16>)
// TENSOR: arith.truncf {{.*}} : f32 to bf16
// TENSOR: library_call = "kiln_rt_batch_matmul_f16_nn"
// The CPU's BLAS widens f16 and bf16 operands to f32: calls too.
// CPU-LABEL: func @narrow
// CPU: library_call = "kiln_rt_matmul_bf16_tn"
// CPU: library_call = "kiln_rt_batch_matmul_f16_nn"
// CHECK-DAG: func.func private @kiln_rt_matmul_bf16_tn_set(memref<?x?xbf16, strided<[?, ?], offset: ?>>, memref<?x?xbf16, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>)
// CHECK-LABEL: func @narrow
// CHECK: call @kiln_rt_matmul_bf16_tn_set(
// CHECK: call @kiln_rt_batch_matmul_f16_nn_set(
func.func @narrow(%a: tensor<8x4xbf16>, %h: tensor<2x4x8xf16>, %g: tensor<2x8x2xf16>) -> (tensor<4x4xbf16>, tensor<2x4x2xf16>) {
  %0 = kiln.matmul %a, %a {transpose_a = true} : tensor<8x4xbf16>, tensor<8x4xbf16> -> tensor<4x4xbf16>
  %1 = kiln.matmul %h, %g : tensor<2x4x8xf16>, tensor<2x8x2xf16> -> tensor<2x4x2xf16>
  return %0, %1 : tensor<4x4xbf16>, tensor<2x4x2xf16>
}
