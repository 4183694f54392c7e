// RUN: kiln-opt %s -pass-pipeline='builtin.module(gpu.module(convert-gpu-to-nvvm,kiln-lower-native-float-ops))' | FileCheck %s

// The libdevice calls -convert-gpu-to-nvvm makes for ops that PTX has
// instructions for become LLVM intrinsics of the same semantics, in f32 and
// f64 alike, and their declarations go. Transcendentals stay calls.

// CHECK-NOT: llvm.func @__nv_fmaxf
// CHECK-NOT: llvm.func @__nv_sqrtf
// CHECK: llvm.func @__nv_exp(f64) -> f64
// CHECK-LABEL: llvm.func @float_ops(
// CHECK-SAME: %[[A:[^:]+]]: f32, %[[B:[^:]+]]: f32, %[[C:[^:]+]]: f64, %[[D:[^:]+]]: f64
// CHECK: llvm.intr.maxnum(%[[A]], %[[B]]) : (f32, f32) -> f32
// CHECK: llvm.intr.minnum(%[[A]], %[[B]]) : (f32, f32) -> f32
// CHECK: llvm.frem %[[A]], %[[B]] : f32
// CHECK: llvm.intr.maxnum(%[[C]], %[[D]]) : (f64, f64) -> f64
// CHECK: llvm.intr.fabs(%[[A]]) : (f32) -> f32
// CHECK: llvm.intr.copysign(%[[A]], %[[B]]) : (f32, f32) -> f32
// CHECK: llvm.intr.fma(%[[A]], %[[B]], %[[A]]) : (f32, f32, f32) -> f32
// CHECK: llvm.intr.sqrt(%[[C]]) : (f64) -> f64
// CHECK: llvm.intr.floor(%[[A]]) : (f32) -> f32
// CHECK: llvm.intr.ceil(%[[A]]) : (f32) -> f32
// CHECK: llvm.intr.round(%[[A]]) : (f32) -> f32
// CHECK: llvm.intr.roundeven(%[[A]]) : (f32) -> f32
// CHECK: llvm.frem %[[C]], %[[D]] : f64
// CHECK: llvm.call @__nv_exp(%[[C]]) : (f64) -> f64
gpu.module @kernels {
  func.func @float_ops(%a: f32, %b: f32, %c: f64, %d: f64)
      -> (f32, f32, f32, f64, f32, f32, f32, f64, f32, f32, f32, f32, f64,
          f64) {
    %0 = arith.maxnumf %a, %b : f32
    %1 = arith.minnumf %a, %b : f32
    %2 = arith.remf %a, %b : f32
    %3 = arith.maxnumf %c, %d : f64
    %4 = math.absf %a : f32
    %5 = math.copysign %a, %b : f32
    %6 = math.fma %a, %b, %a : f32
    %7 = math.sqrt %c : f64
    %8 = math.floor %a : f32
    %9 = math.ceil %a : f32
    %10 = math.round %a : f32
    %11 = math.roundeven %a : f32
    %12 = arith.remf %c, %d : f64
    %13 = math.exp %c : f64
    return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13
        : f32, f32, f32, f64, f32, f32, f32, f64, f32, f32, f32, f32, f64,
          f64
  }
}
