// RUN: kiln-opt %s -kiln-map-kernels-to-gpu=block-size=0 -verify-diagnostics
// RUN: kiln-opt %s -kiln-map-kernels-to-gpu=block-size=2048 -verify-diagnostics
// RUN: kiln-opt %s -kiln-map-kernels-to-gpu=vector-width=3 -verify-diagnostics
// RUN: kiln-opt %s -kiln-map-kernels-to-gpu=vector-width=8 -verify-diagnostics
// RUN: kiln-opt %s -kiln-map-kernels-to-gpu=max-blocks=0 -verify-diagnostics
// RUN: kiln-opt %s -kiln-map-kernels-to-gpu="block-size=1024 vector-width=2 max-blocks=1" | FileCheck %s

// -kiln-map-kernels-to-gpu refuses options out of range, one error on the
// module whatever it holds: blocks of 0 or more than 1024 threads, vectors
// other than 1, 2 or 4 f32 (at most 128 bits), no blocks at all. The
// bounds themselves are accepted.
// CHECK: module
// expected-error @+1 {{kiln-map-kernels-to-gpu: block-size must be in [1, 1024], vector-width 1, 2 or 4 (at most 128 bits), max-blocks positive}}
module {
}
