// RUN: kiln-opt %s -kiln-cpu-pipeline -split-input-file | FileCheck %s
// RUN: kiln-opt %s -kiln-lower-to-linalg -kiln-fuse-linalg-elementwise -canonicalize -cse -one-shot-bufferize="copy-before-write bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" -cse -canonicalize -kiln-elide-copies -split-input-file | FileCheck %s --check-prefix=BUF

// The whole pipeline ends in the LLVM dialect (plus OpenMP ops in LLVM
// types). -kiln-fuse makes the function one fusion group whose exit is the
// concat, so the entry makes one kernel call and allocates nothing (the
// concat's buffer is the caller's); the kernel runs its loops in parallel
// and calls no libm routine: tanh, exp and log are polynomials.
// The kernel takes one pointer per buffer, offset by the caller: the two
// halves of the concat's buffer are its start and 128 floats in.
// CHECK-LABEL: llvm.func @lstm_like
// CHECK-NOT: llvm.call @_mlir_memref_to_llvm_alloc
// CHECK: %[[X:.+]] = llvm.getelementptr %{{.+}}[%{{.+}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK: %[[C:.+]] = llvm.getelementptr %{{.+}}[%{{.+}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK: %[[HIGH:.+]] = llvm.getelementptr %[[OUT:.+]][128] : (!llvm.ptr) -> !llvm.ptr, f32
// CHECK: llvm.call @kiln_kernel_0(%[[X]], %[[C]], %[[OUT]], %[[HIGH]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()
// CHECK-NOT: llvm.call @kiln_kernel_1(
// CHECK-LABEL: llvm.func @_mlir_ciface_lstm_like
// CHECK-LABEL: llvm.func @kiln_kernel_0
// CHECK-SAME: (%{{.+}}: !llvm.ptr, %{{.+}}: !llvm.ptr, %{{.+}}: !llvm.ptr, %{{.+}}: !llvm.ptr)
// CHECK-SAME: attributes {kiln.kernel, kiln.kernel_args = [{{.+}}], passthrough = ["noinline"]
// CHECK: omp.parallel
// CHECK: omp.wsloop
// CHECK-NOT: llvm.call @{{(tanh|exp|log|expf|tanhf|logf)}}
// CHECK-NOT: math.
// CHECK-NOT: linalg.
func.func @lstm_like(%x: tensor<64x128xf32>, %c: tensor<64x128xf32>) -> tensor<64x256xf32> attributes {llvm.emit_c_interface} {
  %s = kiln.sigmoid %x : tensor<64x128xf32>
  %t = kiln.tanh %c : tensor<64x128xf32>
  %m = kiln.mul %s, %t : tensor<64x128xf32>
  %l = kiln.log %s : tensor<64x128xf32>
  %e = kiln.exp %l : tensor<64x128xf32>
  %k = kiln.concat %m, %e dim = 1 : tensor<64x128xf32>, tensor<64x128xf32> -> tensor<64x256xf32>
  return %k : tensor<64x256xf32>
}

// BUF-LABEL: func @lstm_like
// A concat of two producers is one buffer that each producer writes in
// place: one alloc, no copies.
// BUF-COUNT-1: memref.alloc
// BUF-NOT: memref.copy
// BUF-NOT: linalg.copy
// BUF: %[[LEFT:.+]] = memref.subview %[[ALLOC:.+]][0, 0] [64, 128] [1, 1]
// BUF: linalg.generic {{.*}} outs(%[[LEFT]]
// BUF: %[[RIGHT:.+]] = memref.subview %[[ALLOC]][0, 128] [64, 128] [1, 1]
// BUF: linalg.generic {{.*}} outs(%[[RIGHT]]
// BUF-NOT: memref.copy
// BUF: return %[[ALLOC]]

// -----

// f64 lowers as well.
// CHECK-LABEL: llvm.func @f64_reduce
// CHECK: llvm.fadd {{.*}} : f64
func.func @f64_reduce(%x: tensor<16x32xf64>) -> tensor<32xf64> {
  %r = kiln.reduce_sum %x, dims = [0] : tensor<16x32xf64> -> tensor<32xf64>
  return %r : tensor<32xf64>
}
