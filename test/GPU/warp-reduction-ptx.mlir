// RUN: kiln-opt %s -kiln-gpu-pipeline | FileCheck %s --implicit-check-not=__nv_
// RUN: kiln-run %s --entry rows --random-inputs 5 --check-reference --emulate-gpu | FileCheck %s --check-prefix=EMULATED
// RUN: kiln-opt %s -kiln-gpu-pipeline=block-size=48 | FileCheck %s --implicit-check-not=__nv_ --check-prefix=PARTIAL
// RUN: kiln-opt %s -split-input-file -kiln-gpu-pipeline | FileCheck %s --implicit-check-not=__nv_ --check-prefix=F64

// Blocks that are not whole warps, and f64 values (a shuffle moves 32
// bits), keep a thread per output.
// PARTIAL-NOT: shfl.sync
// F64-LABEL: func.func @rows_f64(
// F64-NOT: shfl.sync

// A row reduction gets a warp per row: 512 rows x 32 lanes = 64 blocks of
// 256 threads; the lanes stride over the row and combine with warp
// shuffles (shfl.sync.bfly), no libdevice calls. Run on the CPU one
// thread after another (warps of one lane), it matches the reference.

// CHECK-LABEL: func.func @rows(
// CHECK-DAG: %[[BLOCKS:.+]] = arith.constant 64 : index
// CHECK: gpu.launch_func @kiln_gpu::@[[ROWS:kiln_kernel_[0-9]+]] blocks in (%[[BLOCKS]],
// CHECK: gpu.binary @kiln_gpu
// CHECK-SAME: .visible .entry [[ROWS]](
// CHECK-SAME: shfl.sync.bfly.b32

// EMULATED: reference: out0 tensor<512xf32> matches
func.func @rows(%x: tensor<512x300xf32>) -> tensor<512xf32> {
  %e = kiln.exp %x : tensor<512x300xf32>
  %s = kiln.reduce_sum %e, dims = [1] : tensor<512x300xf32> -> tensor<512xf32>
  return %s : tensor<512xf32>
}

// -----

func.func @rows_f64(%x: tensor<64x300xf64>) -> tensor<64xf64> {
  %s = kiln.reduce_sum %x, dims = [1] : tensor<64x300xf64> -> tensor<64xf64>
  return %s : tensor<64xf64>
}
