// RUN: kiln-opt %s -kiln-gpu-pipeline | FileCheck %s --implicit-check-not=__nv_
// RUN: kiln-opt %s -kiln-gpu-pipeline=chip=sm_90 | FileCheck %s --implicit-check-not=__nv_ --check-prefix=SM90

// The LSTM cell's pointwise part, forward (@cell) and forward+backward
// (@cell_bwd), through the GPU pipeline to PTX (LLVM's NVPTX backend; no
// CUDA toolkit): one kernel per fusion group, launched with 256 threads per
// block, a grid-stride loop, 128-bit loads and stores on the contiguous
// buffers (LLVM 22 spells them ld.global.v4.b32: untyped 32-bit lanes),
// and the transcendentals as polynomials: no libdevice (__nv_*) calls.

// CHECK-LABEL: func.func @cell(
// CHECK-DAG: %[[THREADS:.+]] = arith.constant 256 : index
// CHECK-DAG: %[[BLOCKS:.+]] = arith.constant 128 : index
// CHECK: gpu.launch_func @kiln_gpu::@[[FWD:kiln_kernel_[0-9]+]] blocks in (%[[BLOCKS]], %{{.+}}, %{{.+}}) threads in (%[[THREADS]], %{{.+}}, %{{.+}})
// CHECK-NOT: gpu.launch_func
// CHECK-LABEL: func.func @cell_bwd(
// CHECK: gpu.launch_func @kiln_gpu::@[[BWD:kiln_kernel_[0-9]+]]
// CHECK-NOT: gpu.launch_func
// No compile timings in the output (it is the same from run to run).
// CHECK: gpu.binary @kiln_gpu [#gpu.object<#nvvm.target<O = 3, chip = "sm_80">, properties = {O = 3 : i32}, assembly =
// CHECK-SAME: .target sm_80
// One entry per group, each with its block size.
// CHECK-SAME: .visible .entry [[FWD]](
// CHECK-SAME: .maxntid 256, 1, 1
// CHECK-SAME: ld.global.v4.b32
// CHECK-SAME: st.global.v4.b32
// CHECK-SAME: .visible .entry [[BWD]](
// CHECK-SAME: .maxntid 256, 1, 1
// CHECK-SAME: ld.global.v4.b32
// CHECK-SAME: st.global.v4.b32
// CHECK-NOT: .entry

// SM90: .target sm_90

func.func @cell(%gates: tensor<256x2048xf32>, %c: tensor<256x512xf32>) -> (tensor<256x512xf32>, tensor<256x512xf32>) {
  %i0 = kiln.slice %gates, offsets = [0, 0], sizes = [256, 512] : tensor<256x2048xf32> -> tensor<256x512xf32>
  %f0 = kiln.slice %gates, offsets = [0, 512], sizes = [256, 512] : tensor<256x2048xf32> -> tensor<256x512xf32>
  %g0 = kiln.slice %gates, offsets = [0, 1024], sizes = [256, 512] : tensor<256x2048xf32> -> tensor<256x512xf32>
  %o0 = kiln.slice %gates, offsets = [0, 1536], sizes = [256, 512] : tensor<256x2048xf32> -> tensor<256x512xf32>
  %i = kiln.sigmoid %i0 : tensor<256x512xf32>
  %f = kiln.sigmoid %f0 : tensor<256x512xf32>
  %g = kiln.tanh %g0 : tensor<256x512xf32>
  %o = kiln.sigmoid %o0 : tensor<256x512xf32>
  %fc = kiln.mul %f, %c : tensor<256x512xf32>
  %ig = kiln.mul %i, %g : tensor<256x512xf32>
  %c2 = kiln.add %fc, %ig : tensor<256x512xf32>
  %tc = kiln.tanh %c2 : tensor<256x512xf32>
  %h2 = kiln.mul %o, %tc : tensor<256x512xf32>
  return %h2, %c2 : tensor<256x512xf32>, tensor<256x512xf32>
}

func.func @cell_bwd(%gates: tensor<256x2048xf32>, %c: tensor<256x512xf32>, %dh: tensor<256x512xf32>, %dc: tensor<256x512xf32>) -> (tensor<256x2048xf32>, tensor<256x512xf32>) {
  %g:2 = kiln.vjp @cell(%gates, %c, %dh, %dc) wrt [0, 1] : (tensor<256x2048xf32>, tensor<256x512xf32>, tensor<256x512xf32>, tensor<256x512xf32>) -> (tensor<256x2048xf32>, tensor<256x512xf32>)
  return %g#0, %g#1 : tensor<256x2048xf32>, tensor<256x512xf32>
}
