// RUN: kiln-opt %s -split-input-file -pass-pipeline='builtin.module(gpu.module(convert-gpu-to-nvvm,kiln-lower-native-float-ops))' | FileCheck %s
// RUN: kiln-opt %s -split-input-file -pass-pipeline='builtin.module(gpu.module(kiln-lower-native-float-ops))' | FileCheck %s --check-prefix=ALONE

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

// -----

// The pass on its own, on calls written in the LLVM dialect: every native
// op is matched by name in its f32 and f64 form (trunc, and rint as
// roundeven, too), and the __nv_* declarations left without calls go, the
// ones never called included. A call stays when its callee is no libdevice
// function PTX has an instruction for (__nv_expf; fmaxf without the
// prefix), or when its types or operand count are not those of the
// libdevice function (an f16 fabsf, a one-operand copysignf, an fmod of
// f64 and f32); their declarations stay with them.
// ALONE-LABEL: gpu.module @direct
// ALONE-NOT: llvm.func @__nv_{{(fmaxf|fmin|truncf|rint|fmaf|fabs|never_called)}}(
// ALONE-DAG: llvm.func @__nv_expf(f32) -> f32
// ALONE-DAG: llvm.func @__nv_fabsf(f16) -> f16
// ALONE-DAG: llvm.func @__nv_copysignf(f32) -> f32
// ALONE-DAG: llvm.func @__nv_fmod(f64, f32) -> f64
// ALONE-DAG: llvm.func @fmaxf(f32, f32) -> f32
// ALONE-LABEL: llvm.func @native(
// ALONE-SAME: %[[A:[^:]+]]: f32, %[[B:[^:]+]]: f32, %[[C:[^:]+]]: f64, %[[D:[^:]+]]: f64
// ALONE-NOT: llvm.call
// ALONE: %[[MAX:.+]] = llvm.intr.maxnum(%[[A]], %[[B]]) : (f32, f32) -> f32
// ALONE: %[[MIN:.+]] = llvm.intr.minnum(%[[C]], %[[D]]) : (f64, f64) -> f64
// ALONE: %[[TRUNC:.+]] = llvm.intr.trunc(%[[MAX]]) : (f32) -> f32
// ALONE: %[[RINT:.+]] = llvm.intr.roundeven(%[[MIN]]) : (f64) -> f64
// ALONE: llvm.intr.fma(%[[A]], %[[B]], %[[TRUNC]]) : (f32, f32, f32) -> f32
// ALONE: %[[ABS:.+]] = llvm.intr.fabs(%[[RINT]]) : (f64) -> f64
// ALONE-NOT: llvm.call
// ALONE: llvm.return %[[ABS]] : f64
// ALONE-LABEL: llvm.func @kept(
// ALONE: llvm.call @__nv_expf(
// ALONE: llvm.call @__nv_fabsf(
// ALONE: llvm.call @__nv_copysignf(
// ALONE: llvm.call @__nv_fmod(
// ALONE: llvm.call @fmaxf(
gpu.module @direct {
  llvm.func @__nv_fmaxf(f32, f32) -> f32
  llvm.func @__nv_fmin(f64, f64) -> f64
  llvm.func @__nv_truncf(f32) -> f32
  llvm.func @__nv_rint(f64) -> f64
  llvm.func @__nv_fmaf(f32, f32, f32) -> f32
  llvm.func @__nv_fabs(f64) -> f64
  llvm.func @__nv_never_called(f32) -> f32
  llvm.func @__nv_expf(f32) -> f32
  llvm.func @__nv_fabsf(f16) -> f16
  llvm.func @__nv_copysignf(f32) -> f32
  llvm.func @__nv_fmod(f64, f32) -> f64
  llvm.func @fmaxf(f32, f32) -> f32
  llvm.func @native(%a: f32, %b: f32, %c: f64, %d: f64) -> f64 {
    %0 = llvm.call @__nv_fmaxf(%a, %b) : (f32, f32) -> f32
    %1 = llvm.call @__nv_fmin(%c, %d) : (f64, f64) -> f64
    %2 = llvm.call @__nv_truncf(%0) : (f32) -> f32
    %3 = llvm.call @__nv_rint(%1) : (f64) -> f64
    %4 = llvm.call @__nv_fmaf(%a, %b, %2) : (f32, f32, f32) -> f32
    %5 = llvm.call @__nv_fabs(%3) : (f64) -> f64
    llvm.return %5 : f64
  }
  llvm.func @kept(%a: f32, %c: f64, %h: f16) -> f32 {
    %0 = llvm.call @__nv_expf(%a) : (f32) -> f32
    %1 = llvm.call @__nv_fabsf(%h) : (f16) -> f16
    %2 = llvm.call @__nv_copysignf(%0) : (f32) -> f32
    %3 = llvm.call @__nv_fmod(%c, %2) : (f64, f32) -> f64
    %4 = llvm.call @fmaxf(%2, %a) : (f32, f32) -> f32
    llvm.return %4 : f32
  }
}
