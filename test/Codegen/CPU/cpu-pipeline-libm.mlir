// RUN: kiln-opt %s -kiln-cpu-pipeline -split-input-file | FileCheck %s
// RUN: kiln-opt %s -kiln-cpu-pipeline="expand-math=false" -split-input-file | FileCheck %s --check-prefix=NOEXPAND

// f32 erf (kiln.erf, and kiln.gelu's erf form) is a polynomial; f64 erf
// has neither an LLVM intrinsic nor an expansion and calls libm's erf. Its
// loop is not asked to vectorize (LLVM cannot vectorize the call, and would
// warn), only declared parallel. Without the expansion f32 calls libm's
// erff.
// CHECK: #[[PARALLEL:.+]] = #llvm.loop_annotation<parallelAccesses = #{{.+}}>
// CHECK: llvm.func @erf(f64) -> f64
// CHECK-NOT: llvm.func @erff
// CHECK-LABEL: llvm.func @kiln_kernel_0
// CHECK-NOT: llvm.call @erff
// CHECK: loop_annotation
// CHECK-LABEL: llvm.func @kiln_kernel_1
// CHECK: llvm.call @erf(%{{.+}}) {{.*}}: (f64) -> f64
// CHECK: loop_annotation = #[[PARALLEL]]}
// CHECK: llvm.return
// NOEXPAND-DAG: llvm.call @erff(%{{.+}}) {{.*}}: (f32) -> f32
// NOEXPAND-DAG: llvm.call @erf(%{{.+}}) {{.*}}: (f64) -> f64
func.func @erf_kernels(%x: tensor<64x1000xf32>, %d: tensor<64x1000xf64>)
    -> (tensor<64x1000xf32>, tensor<64x1000xf64>) {
  %e = kiln.erf %x : tensor<64x1000xf32>
  %g = kiln.gelu %e : tensor<64x1000xf32>
  %f = kiln.erf %d : tensor<64x1000xf64>
  return %g, %f : tensor<64x1000xf32>, tensor<64x1000xf64>
}
