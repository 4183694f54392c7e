// RUN: kiln-opt %s -split-input-file -kiln-gpu-pipeline -verify-diagnostics

// f64 transcendentals have no kiln expansion: on the GPU they are libdevice
// calls, refused where libdevice is not linked (they would be unresolved
// symbols when the driver loads the PTX). f32 ones are kiln's polynomials,
// and min, max, abs, sqrt, floor and the like PTX instructions: no
// libdevice either way (see libdevice-linked.mlir).

func.func @exp_f64(%x: tensor<64xf64>) -> tensor<64xf64> {
  // expected-error@+1 {{'__nv_exp' is a libdevice function (f64 transcendentals on the GPU): link libdevice with the GPU pipeline's libdevice option (kiln-run --libdevice, or KILN_LIBDEVICE)}}
  %e = kiln.exp %x : tensor<64xf64>
  return %e : tensor<64xf64>
}

// -----

// Everything else of unary.mlir's f32 and f64 ops needs no libdevice.
func.func @native_f64(%x: tensor<64xf64>, %y: tensor<64xf64>) -> tensor<64xf64> {
  %a = kiln.abs %x : tensor<64xf64>
  %s = kiln.sqrt %a : tensor<64xf64>
  %m = kiln.max %s, %y : tensor<64xf64>
  return %m : tensor<64xf64>
}
