// REQUIRES: libdevice
// RUN: kiln-opt %s -kiln-gpu-pipeline=libdevice=%libdevice | FileCheck %s --implicit-check-not=__nv_

// With libdevice linked, its functions are inlined into the kernels: no
// call of a `__nv_` function is left in the PTX.

// CHECK: gpu.binary @kiln_gpu
// CHECK-SAME: .visible .entry kiln_kernel_0(
// CHECK-SAME: fma.rn.f64
func.func @exp_f64(%x: tensor<64xf64>) -> tensor<64xf64> {
  %e = kiln.exp %x : tensor<64xf64>
  return %e : tensor<64xf64>
}
