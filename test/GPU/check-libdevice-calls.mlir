// RUN: kiln-opt %s -split-input-file -pass-pipeline='builtin.module(gpu.module(kiln-check-libdevice-calls))' -verify-diagnostics

// A kernel that calls libdevice (f64 transcendentals become __nv_* calls)
// is refused where libdevice is not linked: one error per function, at its
// first call.
gpu.module @kernels {
  llvm.func @__nv_exp(f64) -> f64
  llvm.func @__nv_log(f64) -> f64
  llvm.func @k(%x: f64) -> f64 {
    // expected-error @+1 {{'__nv_exp' is a libdevice function (f64 transcendentals on the GPU): link libdevice with the GPU pipeline's libdevice option (kiln-run --libdevice, or KILN_LIBDEVICE)}}
    %0 = llvm.call @__nv_exp(%x) : (f64) -> f64
    %1 = llvm.call @__nv_exp(%0) : (f64) -> f64
    // expected-error @+1 {{'__nv_log' is a libdevice function}}
    %2 = llvm.call @__nv_log(%1) : (f64) -> f64
    llvm.return %2 : f64
  }
}

// -----

// Other calls pass without a diagnostic.
gpu.module @clean {
  llvm.func @helper(%x: f32) -> f32 {
    llvm.return %x : f32
  }
  llvm.func @k(%x: f32) -> f32 {
    %0 = llvm.call @helper(%x) : (f32) -> f32
    llvm.return %0 : f32
  }
}
