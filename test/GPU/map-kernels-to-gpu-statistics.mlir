// -kiln-map-kernels-to-gpu's statistics show under a Release LLVM too, named
// and described as Passes.td declares them: one kernel for each of the two
// elementwise ops of different shapes, each with a vector path.
// RUN: kiln-opt %s --kiln-gpu-pipeline -mlir-pass-statistics -o /dev/null 2>&1 | FileCheck %s

// CHECK-LABEL: KilnMapKernelsToGpu
// CHECK-NEXT: (S) 2 kiln-gpu-kernels - GPU kernels made
// CHECK-NEXT: (S) 2 kiln-gpu-vectorized-loops - loops with a vector path
func.func @main(%x: tensor<8x64xf32>, %y: tensor<16x128xf32>) -> (tensor<8x64xf32>, tensor<16x128xf32>) {
  %t = kiln.tanh %x : tensor<8x64xf32>
  %e = kiln.exp %y : tensor<16x128xf32>
  return %t, %e : tensor<8x64xf32>, tensor<16x128xf32>
}
