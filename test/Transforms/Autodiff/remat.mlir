// Automatic rematerialization (-kiln-autodiff remat=auto, KILN_REMAT=auto):
// a forward value of cheap ops that the derivative reads is recomputed
// there (copies marked kiln.recomputed) when what the copies read is kept
// anyway, or is smaller, and the arithmetic repeated is at most 8 units per
// byte saved; a value that only products read needs a kernel of its own,
// and is recomputed only when it saves at least 1 MiB. The derivative's own
// cheap ops that read only forward values are marked too, so that
// -kiln-fuse keeps them out of the forward, and its cheap ops after a gap
// kiln.after_gap.
// RUN: kiln-opt %s -kiln-autodiff=remat=auto -canonicalize -cse -split-input-file | FileCheck %s
// RUN: kiln-opt %s -kiln-autodiff -canonicalize -cse -split-input-file | FileCheck %s --check-prefix=KEEP
// Over the functions below: 1 (@gelu_mlp) + 4 (@layer_norm) + 4 (@costly).
// RUN: kiln-opt %s -kiln-autodiff=remat=auto -mlir-pass-statistics -split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS
// STATS: (S) 9 kiln-rematerialized-ops
// With remat-min-bytes=0, values of any size.
// RUN: kiln-opt %s -kiln-autodiff="remat=auto remat-min-bytes=0" -canonicalize -cse -split-input-file | FileCheck %s --check-prefix=ANY
// RUN: not kiln-opt %s -kiln-autodiff=remat=always -split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not kiln-opt %s -kiln-autodiff="remat=auto remat-min-bytes=-1" -split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=NEGATIVE

// BAD: -kiln-autodiff: remat must be 'none' or 'auto', not 'always'
// NEGATIVE: -kiln-autodiff: remat-min-bytes must be at least 0, not -1

// A GELU between two products: the second product's weight gradient reads
// the GELU's output (1 MiB), recomputed from its input h (kept for the
// GELU's own derivative) just before the product.
// CHECK-LABEL: func.func @gelu_mlp
// CHECK:      %[[H:.+]] = kiln.matmul %{{.+}}, %{{.+}} : tensor<512x8xf32>, tensor<8x512xf32>
// CHECK:      %[[G:.+]] = kiln.gelu %[[H]] {kiln.recomputed}
// CHECK-NEXT: kiln.matmul %[[G]], %{{.+}} {transpose_a = true}
// KEEP-LABEL: func.func @gelu_mlp
// KEEP-NOT:   kiln.recomputed
// KEEP:       return
func.func private @mlp(%x: tensor<512x8xf32>, %w1: tensor<8x512xf32>, %w2: tensor<512x2xf32>) -> tensor<f32> {
  %h = kiln.matmul %x, %w1 : tensor<512x8xf32>, tensor<8x512xf32> -> tensor<512x512xf32>
  %g = kiln.gelu %h : tensor<512x512xf32>
  %o = kiln.matmul %g, %w2 : tensor<512x512xf32>, tensor<512x2xf32> -> tensor<512x2xf32>
  %s = kiln.reduce_sum %o, dims = [0, 1] : tensor<512x2xf32> -> tensor<f32>
  return %s : tensor<f32>
}
func.func @gelu_mlp(%x: tensor<512x8xf32>, %w1: tensor<8x512xf32>, %w2: tensor<512x2xf32>) -> (tensor<8x512xf32>, tensor<512x2xf32>) {
  %ct = kiln.constant dense<1.0> : tensor<f32>
  %g:2 = kiln.vjp @mlp(%x, %w1, %w2, %ct) wrt [1, 2]
      : (tensor<512x8xf32>, tensor<8x512xf32>, tensor<512x2xf32>, tensor<f32>) -> (tensor<8x512xf32>, tensor<512x2xf32>)
  return %g#0, %g#1 : tensor<8x512xf32>, tensor<512x2xf32>
}

// -----

// The same at 16 x 64: values of 4 KiB (under 64 KiB) are neither
// recomputed nor kept out of the forward's kernels.
// CHECK-LABEL: func.func @gelu_mlp_tiny
// CHECK-NOT:  kiln.recomputed
// CHECK-NOT:  kiln.after_gap
// CHECK:      return
// ANY-LABEL:  func.func @gelu_mlp_tiny
// ANY:        %[[G:.+]] = kiln.gelu %{{.+}} {kiln.recomputed}
// ANY-NEXT:   kiln.matmul %[[G]], %{{.+}} {transpose_a = true}
func.func private @gelu_mlp_tiny_fn(%x: tensor<16x8xf32>, %w1: tensor<8x64xf32>, %w2: tensor<64x2xf32>) -> tensor<f32> {
  %h = kiln.matmul %x, %w1 : tensor<16x8xf32>, tensor<8x64xf32> -> tensor<16x64xf32>
  %g = kiln.gelu %h : tensor<16x64xf32>
  %o = kiln.matmul %g, %w2 : tensor<16x64xf32>, tensor<64x2xf32> -> tensor<16x2xf32>
  %s = kiln.reduce_sum %o, dims = [0, 1] : tensor<16x2xf32> -> tensor<f32>
  return %s : tensor<f32>
}
func.func @gelu_mlp_tiny(%x: tensor<16x8xf32>, %w1: tensor<8x64xf32>, %w2: tensor<64x2xf32>) -> (tensor<8x64xf32>, tensor<64x2xf32>) {
  %ct = kiln.constant dense<1.0> : tensor<f32>
  %g:2 = kiln.vjp @gelu_mlp_tiny_fn(%x, %w1, %w2, %ct) wrt [1, 2]
      : (tensor<16x8xf32>, tensor<8x64xf32>, tensor<64x2xf32>, tensor<f32>) -> (tensor<8x64xf32>, tensor<64x2xf32>)
  return %g#0, %g#1 : tensor<8x64xf32>, tensor<64x2xf32>
}

// -----

// At 64 x 1024 (256 KiB): only the product reads the GELU's output, so its
// recomputation would take a kernel of its own, worth it from 1 MiB; the
// product reads the forward's. The GELU's derivative at h (256 KiB) stays
// in the backward.
// CHECK-LABEL: func.func @gelu_mlp_own_kernel
// CHECK:      %[[G:.+]] = kiln.gelu %{{.+}} : tensor<64x1024xf32>
// CHECK-NOT:  kiln.gelu
// CHECK:      kiln.matmul %[[G]], %{{.+}} {transpose_a = true}
// CHECK:      kiln.erf %{{.+}} {kiln.recomputed}
// CHECK-NOT:  kiln.gelu
// CHECK:      return
func.func private @gelu_mlp_own_kernel_fn(%x: tensor<64x8xf32>, %w1: tensor<8x1024xf32>, %w2: tensor<1024x2xf32>) -> tensor<f32> {
  %h = kiln.matmul %x, %w1 : tensor<64x8xf32>, tensor<8x1024xf32> -> tensor<64x1024xf32>
  %g = kiln.gelu %h : tensor<64x1024xf32>
  %o = kiln.matmul %g, %w2 : tensor<64x1024xf32>, tensor<1024x2xf32> -> tensor<64x2xf32>
  %s = kiln.reduce_sum %o, dims = [0, 1] : tensor<64x2xf32> -> tensor<f32>
  return %s : tensor<f32>
}
func.func @gelu_mlp_own_kernel(%x: tensor<64x8xf32>, %w1: tensor<8x1024xf32>, %w2: tensor<1024x2xf32>) -> (tensor<8x1024xf32>, tensor<1024x2xf32>) {
  %ct = kiln.constant dense<1.0> : tensor<f32>
  %g:2 = kiln.vjp @gelu_mlp_own_kernel_fn(%x, %w1, %w2, %ct) wrt [1, 2]
      : (tensor<64x8xf32>, tensor<8x1024xf32>, tensor<1024x2xf32>, tensor<f32>) -> (tensor<8x1024xf32>, tensor<1024x2xf32>)
  return %g#0, %g#1 : tensor<8x1024xf32>, tensor<1024x2xf32>
}

// -----

// A LayerNorm: its normalized value and its output are recomputed from the
// centred input and the row statistics, which its derivative keeps anyway,
// through broadcasts (free: a kernel reads their operands). The tanh's
// output is kept: recomputing it would keep the product it reads instead,
// as many bytes.
// CHECK-LABEL: func.func @layer_norm
// CHECK:      %[[XC:.+]] = kiln.sub
// CHECK:      %[[R:.+]] = kiln.rsqrt
// CHECK:      %[[T:.+]] = kiln.tanh
// CHECK-NOT:  kiln.tanh
// CHECK:      %[[RB:.+]] = kiln.broadcast_in_dim %[[R]], dims = [0] {kiln.recomputed}
// CHECK-NEXT: %[[XH:.+]] = kiln.mul %[[XC]], %[[RB]] {kiln.recomputed}
// CHECK-NEXT: %[[GB:.+]] = kiln.broadcast_in_dim %{{.+}}, dims = [1] {kiln.recomputed}
// CHECK-NEXT: %[[Y:.+]] = kiln.mul %[[XH]], %[[GB]] {kiln.recomputed}
// CHECK-NEXT: kiln.matmul %[[Y]], %{{.+}} {transpose_a = true}
func.func private @ln(%x: tensor<512x512xf32>, %g: tensor<512xf32>, %w: tensor<512x512xf32>) -> tensor<f32> {
  %s = kiln.reduce_sum %x, dims = [1] : tensor<512x512xf32> -> tensor<512xf32>
  %sb = kiln.broadcast_in_dim %s, dims = [0] : tensor<512xf32> -> tensor<512x512xf32>
  %xc = kiln.sub %x, %sb : tensor<512x512xf32>
  %q = kiln.mul %xc, %xc : tensor<512x512xf32>
  %v = kiln.reduce_sum %q, dims = [1] : tensor<512x512xf32> -> tensor<512xf32>
  %r = kiln.rsqrt %v : tensor<512xf32>
  %rb = kiln.broadcast_in_dim %r, dims = [0] : tensor<512xf32> -> tensor<512x512xf32>
  %xh = kiln.mul %xc, %rb : tensor<512x512xf32>
  %gb = kiln.broadcast_in_dim %g, dims = [1] : tensor<512xf32> -> tensor<512x512xf32>
  %y = kiln.mul %xh, %gb : tensor<512x512xf32>
  %m = kiln.matmul %y, %w : tensor<512x512xf32>, tensor<512x512xf32> -> tensor<512x512xf32>
  %t = kiln.tanh %m : tensor<512x512xf32>
  %o = kiln.reduce_sum %t, dims = [0, 1] : tensor<512x512xf32> -> tensor<f32>
  return %o : tensor<f32>
}
func.func @layer_norm(%x: tensor<512x512xf32>, %g: tensor<512xf32>, %w: tensor<512x512xf32>) -> (tensor<512x512xf32>, tensor<512xf32>, tensor<512x512xf32>) {
  %ct = kiln.constant dense<1.0> : tensor<f32>
  %d:3 = kiln.vjp @ln(%x, %g, %w, %ct) wrt [0, 1, 2]
      : (tensor<512x512xf32>, tensor<512xf32>, tensor<512x512xf32>, tensor<f32>) -> (tensor<512x512xf32>, tensor<512xf32>, tensor<512x512xf32>)
  return %d#0, %d#1, %d#2 : tensor<512x512xf32>, tensor<512xf32>, tensor<512x512xf32>
}

// -----

// The arithmetic bound: each sin and cos costs 8 units per element, 32
// per f32 element saved. Past the product's derivative (a gap), the chain's
// derivative reads x and each value; the first four are recomputed from x
// (8, 16, 24, 32 units), the fifth would cost 40 and is kept.
// CHECK-LABEL: func.func @costly
// CHECK:      kiln.sin %{{.+}} : tensor<128x128xf32>
// CHECK-NEXT: kiln.cos
// CHECK-NEXT: kiln.sin
// CHECK-NEXT: kiln.cos
// CHECK-NEXT: %[[KEPT:.+]] = kiln.sin %{{.+}} : tensor<128x128xf32>
// CHECK:      kiln.matmul %[[KEPT]], %{{.+}} {transpose_a = true}
// CHECK:      %[[A:.+]] = kiln.sin %[[X:.+]] {kiln.recomputed}
// CHECK-NEXT: %[[B:.+]] = kiln.cos %[[A]] {kiln.recomputed}
// CHECK-NEXT: %[[C:.+]] = kiln.sin %[[B]] {kiln.recomputed}
// CHECK-NEXT: kiln.cos %[[C]] {kiln.recomputed}
// CHECK-NOT:  kiln.sin %[[KEPT]]
// CHECK:      return
func.func private @chain(%x: tensor<128x128xf32>, %w: tensor<128x128xf32>) -> tensor<f32> {
  %a = kiln.sin %x : tensor<128x128xf32>
  %b = kiln.cos %a : tensor<128x128xf32>
  %c = kiln.sin %b : tensor<128x128xf32>
  %d = kiln.cos %c : tensor<128x128xf32>
  %e = kiln.sin %d : tensor<128x128xf32>
  %m = kiln.matmul %e, %w : tensor<128x128xf32>, tensor<128x128xf32> -> tensor<128x128xf32>
  %s = kiln.reduce_sum %m, dims = [0, 1] : tensor<128x128xf32> -> tensor<f32>
  return %s : tensor<f32>
}
func.func @costly(%x: tensor<128x128xf32>, %w: tensor<128x128xf32>) -> (tensor<128x128xf32>, tensor<128x128xf32>) {
  %ct = kiln.constant dense<1.0> : tensor<f32>
  %d:2 = kiln.vjp @chain(%x, %w, %ct) wrt [0, 1] : (tensor<128x128xf32>, tensor<128x128xf32>, tensor<f32>) -> (tensor<128x128xf32>, tensor<128x128xf32>)
  return %d#0, %d#1 : tensor<128x128xf32>, tensor<128x128xf32>
}

// -----

// No gap: the derivative of an LSTM-like cell whose cotangents are inputs
// reads the forward's values before any kernel that the forward cannot
// share, so the two may fuse; nothing is recomputed or marked.
// CHECK-LABEL: func.func @no_gap
// CHECK-NOT:  kiln.recomputed
// CHECK:      return
func.func private @cell(%x: tensor<128x128xf32>, %c: tensor<128x128xf32>) -> (tensor<128x128xf32>, tensor<128x128xf32>) {
  %s = kiln.sigmoid %x : tensor<128x128xf32>
  %c2 = kiln.mul %s, %c : tensor<128x128xf32>
  %t = kiln.tanh %c2 : tensor<128x128xf32>
  %h = kiln.mul %s, %t : tensor<128x128xf32>
  return %h, %c2 : tensor<128x128xf32>, tensor<128x128xf32>
}
func.func @no_gap(%x: tensor<128x128xf32>, %c: tensor<128x128xf32>, %dh: tensor<128x128xf32>, %dc: tensor<128x128xf32>) -> (tensor<128x128xf32>, tensor<128x128xf32>) {
  %d:2 = kiln.vjp @cell(%x, %c, %dh, %dc) wrt [0, 1] : (tensor<128x128xf32>, tensor<128x128xf32>, tensor<128x128xf32>, tensor<128x128xf32>) -> (tensor<128x128xf32>, tensor<128x128xf32>)
  return %d#0, %d#1 : tensor<128x128xf32>, tensor<128x128xf32>
}

// -----

// No gap either: a softmax's derivative reduces over the rows the forward
// reduced (a row reduction, which shares the forward's row kernel), so
// its exponentials are never stored; nothing is recomputed or marked. (A
// reduction over the rows' other dim, a bias's gradient, is a gap: see
// @layer_norm.)
// CHECK-LABEL: func.func @softmax_rows
// CHECK-NOT:  kiln.recomputed
// CHECK:      return
func.func private @softmax(%x: tensor<128x128xf32>) -> tensor<128x128xf32> {
  %m = kiln.reduce_max %x, dims = [1] : tensor<128x128xf32> -> tensor<128xf32>
  %mb = kiln.broadcast_in_dim %m, dims = [0] : tensor<128xf32> -> tensor<128x128xf32>
  %s = kiln.sub %x, %mb : tensor<128x128xf32>
  %e = kiln.exp %s : tensor<128x128xf32>
  %z = kiln.reduce_sum %e, dims = [1] : tensor<128x128xf32> -> tensor<128xf32>
  %zb = kiln.broadcast_in_dim %z, dims = [0] : tensor<128xf32> -> tensor<128x128xf32>
  %y = kiln.div %e, %zb : tensor<128x128xf32>
  return %y : tensor<128x128xf32>
}
func.func @softmax_rows(%x: tensor<128x128xf32>, %dy: tensor<128x128xf32>) -> tensor<128x128xf32> {
  %d = kiln.vjp @softmax(%x, %dy) wrt [0] : (tensor<128x128xf32>, tensor<128x128xf32>) -> tensor<128x128xf32>
  return %d : tensor<128x128xf32>
}

// -----

// A derivative of a derivative (a Hessian-vector product) keeps its values:
// remat=auto recomputes for first derivatives only, neither in the inner
// gradient (differentiated again; alone, it would recompute the GELU, as
// @gelu_mlp does) nor in the outer one.
// CHECK-LABEL: func.func private @gradient
// CHECK-NOT:  kiln.recomputed
// CHECK-LABEL: func.func @second_order
// CHECK-NOT:  kiln.recomputed
// CHECK:      return
func.func private @inner(%x: tensor<512x8xf32>, %w1: tensor<8x512xf32>, %w2: tensor<512x2xf32>) -> tensor<f32> {
  %h = kiln.matmul %x, %w1 : tensor<512x8xf32>, tensor<8x512xf32> -> tensor<512x512xf32>
  %g = kiln.gelu %h : tensor<512x512xf32>
  %o = kiln.matmul %g, %w2 : tensor<512x512xf32>, tensor<512x2xf32> -> tensor<512x2xf32>
  %s = kiln.reduce_sum %o, dims = [0, 1] : tensor<512x2xf32> -> tensor<f32>
  return %s : tensor<f32>
}
func.func private @gradient(%x: tensor<512x8xf32>, %w1: tensor<8x512xf32>, %w2: tensor<512x2xf32>) -> tensor<512x2xf32> {
  %ct = kiln.constant dense<1.0> : tensor<f32>
  %g:2 = kiln.vjp @inner(%x, %w1, %w2, %ct) wrt [1, 2] : (tensor<512x8xf32>, tensor<8x512xf32>, tensor<512x2xf32>, tensor<f32>) -> (tensor<8x512xf32>, tensor<512x2xf32>)
  return %g#1 : tensor<512x2xf32>
}
func.func @second_order(%x: tensor<512x8xf32>, %w1: tensor<8x512xf32>, %w2: tensor<512x2xf32>, %v: tensor<512x2xf32>) -> tensor<512x8xf32> {
  %h = kiln.vjp @gradient(%x, %w1, %w2, %v) wrt [0] : (tensor<512x8xf32>, tensor<8x512xf32>, tensor<512x2xf32>, tensor<512x2xf32>) -> tensor<512x8xf32>
  return %h : tensor<512x8xf32>
}
