// Softmax and log_softmax over rows, forward and backward: each a row group
// (-kiln-fuse), one kernel on the CPU, checked by value on the CPU and the
// emulated GPU. Rows of 100 (not a power of two) and a 3-D case whose rows
// are indexed by two dims.
// RUN: kiln-run %s --entry softmax --random-inputs 1 --check-reference --report | FileCheck %s --check-prefix=FWD
// RUN: kiln-run %s --entry softmax_bwd --random-inputs 2 --check-reference --report | FileCheck %s --check-prefix=BWD
// RUN: kiln-run %s --entry log_softmax --random-inputs 3 --check-reference --report | FileCheck %s --check-prefix=LOGFWD
// RUN: kiln-run %s --entry log_softmax_bwd --random-inputs 4 --check-reference --report | FileCheck %s --check-prefix=LOGBWD
// RUN: kiln-run %s --entry softmax3d --random-inputs 5 --check-reference --report | FileCheck %s --check-prefix=FWD3D
// RUN: kiln-run %s --entry softmax --random-inputs 1 --check-reference --emulate-gpu | FileCheck %s --check-prefix=VALUE
// RUN: kiln-run %s --entry softmax_bwd --random-inputs 2 --check-reference --emulate-gpu | FileCheck %s --check-prefix=VALUE
// RUN: kiln-run %s --entry log_softmax_bwd --random-inputs 4 --check-reference --emulate-gpu | FileCheck %s --check-prefix=VALUE
// RUN: kiln-run %s --entry softmax3d --random-inputs 5 --check-reference --emulate-gpu | FileCheck %s --check-prefix=VALUE
// RUN: kiln-opt %s -kiln-fuse -mlir-pass-statistics 2>&1 | FileCheck %s --check-prefix=STATS
// On the GPU each is one launch too, a warp per row
// (-kiln-map-kernels-to-gpu's row kernels).
// RUN: kiln-run %s --entry softmax --random-inputs 1 --emulate-gpu --report | FileCheck %s --check-prefix=GPU
// RUN: kiln-run %s --entry softmax_bwd --random-inputs 2 --emulate-gpu --report | FileCheck %s --check-prefix=GPU
// RUN: kiln-run %s --entry log_softmax --random-inputs 3 --emulate-gpu --report | FileCheck %s --check-prefix=GPU
// RUN: kiln-run %s --entry log_softmax_bwd --random-inputs 4 --emulate-gpu --report | FileCheck %s --check-prefix=GPU
// RUN: kiln-run %s --entry softmax3d --random-inputs 5 --emulate-gpu --report | FileCheck %s --check-prefix=GPU
// GPU: "kernel_launches": 1,

// FWD: reference: out0 tensor<32x100xf32> matches
// FWD: "fusion_groups": 1, "unique_kernels": 1, "kernel_launches": 1,
// BWD: reference: out0 tensor<32x100xf32> matches
// BWD: "kernel_launches": 1,
// LOGFWD: reference: out0 tensor<32x100xf32> matches
// LOGFWD: "kernel_launches": 1,
// LOGBWD: reference: out0 tensor<32x100xf32> matches
// LOGBWD: "kernel_launches": 1,
// FWD3D: reference: out0 tensor<4x8x50xf32> matches
// FWD3D: "kernel_launches": 1,
// VALUE: reference: out0 {{.*}} matches
// STATS: 3 kiln-fusion-groups
// STATS-NEXT: 3 kiln-row-groups

func.func @softmax(%x: tensor<32x100xf32>) -> tensor<32x100xf32> {
  %m = kiln.reduce_max %x, dims = [1] : tensor<32x100xf32> -> tensor<32xf32>
  %mb = kiln.broadcast_in_dim %m, dims = [0] : tensor<32xf32> -> tensor<32x100xf32>
  %d = kiln.sub %x, %mb : tensor<32x100xf32>
  %e = kiln.exp %d : tensor<32x100xf32>
  %s = kiln.reduce_sum %e, dims = [1] : tensor<32x100xf32> -> tensor<32xf32>
  %sb = kiln.broadcast_in_dim %s, dims = [0] : tensor<32xf32> -> tensor<32x100xf32>
  %y = kiln.div %e, %sb : tensor<32x100xf32>
  return %y : tensor<32x100xf32>
}

func.func @softmax_bwd(%x: tensor<32x100xf32>, %dy: tensor<32x100xf32>) -> tensor<32x100xf32> {
  %dx = kiln.vjp @softmax(%x, %dy) wrt [0] : (tensor<32x100xf32>, tensor<32x100xf32>) -> tensor<32x100xf32>
  return %dx : tensor<32x100xf32>
}

func.func @log_softmax(%x: tensor<32x100xf32>) -> tensor<32x100xf32> {
  %m = kiln.reduce_max %x, dims = [1] : tensor<32x100xf32> -> tensor<32xf32>
  %mb = kiln.broadcast_in_dim %m, dims = [0] : tensor<32xf32> -> tensor<32x100xf32>
  %d = kiln.sub %x, %mb : tensor<32x100xf32>
  %e = kiln.exp %d : tensor<32x100xf32>
  %s = kiln.reduce_sum %e, dims = [1] : tensor<32x100xf32> -> tensor<32xf32>
  %l = kiln.log %s : tensor<32xf32>
  %lb = kiln.broadcast_in_dim %l, dims = [0] : tensor<32xf32> -> tensor<32x100xf32>
  %y = kiln.sub %d, %lb : tensor<32x100xf32>
  return %y : tensor<32x100xf32>
}

func.func @log_softmax_bwd(%x: tensor<32x100xf32>, %dy: tensor<32x100xf32>) -> tensor<32x100xf32> {
  %dx = kiln.vjp @log_softmax(%x, %dy) wrt [0] : (tensor<32x100xf32>, tensor<32x100xf32>) -> tensor<32x100xf32>
  return %dx : tensor<32x100xf32>
}

func.func @softmax3d(%x: tensor<4x8x50xf32>) -> tensor<4x8x50xf32> {
  %m = kiln.reduce_max %x, dims = [2] : tensor<4x8x50xf32> -> tensor<4x8xf32>
  %mb = kiln.broadcast_in_dim %m, dims = [0, 1] : tensor<4x8xf32> -> tensor<4x8x50xf32>
  %d = kiln.sub %x, %mb : tensor<4x8x50xf32>
  %e = kiln.exp %d : tensor<4x8x50xf32>
  %s = kiln.reduce_sum %e, dims = [2] : tensor<4x8x50xf32> -> tensor<4x8xf32>
  %sb = kiln.broadcast_in_dim %s, dims = [0, 1] : tensor<4x8xf32> -> tensor<4x8x50xf32>
  %y = kiln.div %e, %sb : tensor<4x8x50xf32>
  return %y : tensor<4x8x50xf32>
}
