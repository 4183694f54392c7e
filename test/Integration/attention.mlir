// Attention in the forms models write it, forward and backward, checked
// against the reference interpreter: -kiln-fuse-attention makes each a
// kiln.attention (test/Dialect/Kiln/fuse-attention.mlir checks that), whose
// derivative is kiln.attention_grad.
//
// A pre-LN GPT block's attention: [B, h, T, d] through reshapes, k
// transposed by a kiln.transpose, a constant scale and an additive causal
// mask given as an input.
// RUN: kiln-run %s --entry gpt --random-inputs 701 --check-reference | FileCheck %s --check-prefix=GPT
// RUN: kiln-run %s --entry gpt_grad --random-inputs 702 --check-reference | FileCheck %s --check-prefix=GPTGRAD
// PyTorch's masked_fill form: a causal mask from iotas, the scale an input.
// RUN: kiln-run %s --entry masked --random-inputs 703 --check-reference | FileCheck %s --check-prefix=MASKED
// RUN: kiln-run %s --entry masked_grad --random-inputs 704 --check-reference | FileCheck %s --check-prefix=MASKEDGRAD
// Cross-attention: 6 queries over 10 keys, values of another width, a
// key-padding mask per batch.
// RUN: kiln-run %s --entry cross --random-inputs 705 --check-reference | FileCheck %s --check-prefix=CROSS
// RUN: kiln-run %s --entry cross_grad --random-inputs 706 --check-reference | FileCheck %s --check-prefix=CROSSGRAD
// A non-causal encoder: no mask, the scale a division.
// RUN: kiln-run %s --entry encoder_grad --random-inputs 707 --check-reference | FileCheck %s --check-prefix=ENCGRAD
// A learned additive bias (its gradient too): the derivative takes the
// decomposed form.
// RUN: kiln-run %s --entry bias_grad --random-inputs 708 --check-reference | FileCheck %s --check-prefix=BIASGRAD
// Gradients of gradients: the derivative of attention_grad.
// RUN: kiln-run %s --entry second_order --random-inputs 709 --check-reference --rtol 1e-3 --atol 1e-4 | FileCheck %s --check-prefix=SECOND
// Several blocks of queries and keys (the runtime's kernels take 64 x 128),
// masked so that whole blocks are -inf, and rows with no key at all.
// RUN: kiln-run %s --entry blocks --random-inputs 710 --check-reference | FileCheck %s --check-prefix=BLOCKS
// RUN: kiln-run %s --entry blocks --random-inputs 710 --profile 2>&1 | FileCheck %s --check-prefix=CALLS
// Under autocast (bf16 products and softmax, as kiln.autocast records them
// on the CPU): the attention computes in f32 from the bf16-rounded q, k and
// v and rounds its result once; within bf16's tolerance of the reference,
// which rounds every op.
// RUN: kiln-run %s --entry autocast --random-inputs 719 --check-reference --rtol 2e-2 --atol 2e-2 | FileCheck %s --check-prefix=AUTOCAST
// RUN: kiln-run %s --entry autocast_grad --random-inputs 720 --check-reference --rtol 5e-2 --atol 5e-2 | FileCheck %s --check-prefix=AUTOCASTGRAD
// The compiled host code (a host program's fallback) calls the kernels
// through their C interface.
// RUN: kiln-run %s --entry masked_grad --random-inputs 711 --check-reference --compile-host | FileCheck %s --check-prefix=MASKEDGRAD

// GPT: reference: out0 tensor<2x2x8x4xf32> matches
// GPTGRAD-COUNT-3: reference: out{{[0-2]}} tensor<2x2x8x4xf32> matches
// MASKED: reference: out0 tensor<2x2x8x4xf32> matches
// MASKEDGRAD-COUNT-3: reference: out{{[0-2]}} tensor<2x2x8x4xf32> matches
// CROSS: reference: out0 tensor<2x6x5xf32> matches
// CROSSGRAD: reference: out0 tensor<2x6x4xf32> matches
// CROSSGRAD: reference: out1 tensor<2x10x4xf32> matches
// CROSSGRAD: reference: out2 tensor<2x10x5xf32> matches
// ENCGRAD-COUNT-3: reference: out{{[0-2]}} tensor<3x7x4xf32> matches
// BIASGRAD: reference: out0 tensor<3x7x4xf32> matches
// BIASGRAD: reference: out1 tensor<7x7xf32> matches
// SECOND-COUNT-2: reference: out{{[0-1]}} tensor<3x7x4xf32> matches
// BLOCKS: reference: out0 tensor<2x150x12xf32> matches
// CALLS: kiln_rt_attention_f32
// AUTOCAST: reference: out0 tensor<4x16x8xbf16> matches
// AUTOCASTGRAD: reference: out0 tensor<4x16x8xf32> matches
// AUTOCASTGRAD: reference: out1 tensor<4x8x16xf32> matches
// AUTOCASTGRAD: reference: out2 tensor<4x16x8xf32> matches

func.func @gpt(%q: tensor<2x2x8x4xf32>, %k: tensor<2x2x8x4xf32>, %v: tensor<2x2x8x4xf32>, %mask: tensor<8x8xf32>) -> tensor<2x2x8x4xf32> {
  %q3 = kiln.reshape %q : tensor<2x2x8x4xf32> -> tensor<4x8x4xf32>
  %kt = kiln.transpose %k, perm = [0, 1, 3, 2] : tensor<2x2x8x4xf32> -> tensor<2x2x4x8xf32>
  %kt3 = kiln.reshape %kt : tensor<2x2x4x8xf32> -> tensor<4x4x8xf32>
  %s3 = kiln.matmul %q3, %kt3 : tensor<4x8x4xf32>, tensor<4x4x8xf32> -> tensor<4x8x8xf32>
  %s = kiln.reshape %s3 : tensor<4x8x8xf32> -> tensor<2x2x8x8xf32>
  %c = kiln.constant dense<0.5> : tensor<2x2x8x8xf32>
  %scaled = kiln.mul %s, %c : tensor<2x2x8x8xf32>
  %mb = kiln.broadcast_in_dim %mask, dims = [2, 3] : tensor<8x8xf32> -> tensor<2x2x8x8xf32>
  %x = kiln.add %scaled, %mb : tensor<2x2x8x8xf32>
  %m = kiln.reduce_max %x, dims = [3] : tensor<2x2x8x8xf32> -> tensor<2x2x8xf32>
  %m1 = kiln.reshape %m : tensor<2x2x8xf32> -> tensor<2x2x8x1xf32>
  %mx = kiln.broadcast_in_dim %m1, dims = [0, 1, 2, 3] : tensor<2x2x8x1xf32> -> tensor<2x2x8x8xf32>
  %d = kiln.sub %x, %mx : tensor<2x2x8x8xf32>
  %e = kiln.exp %d : tensor<2x2x8x8xf32>
  %z = kiln.reduce_sum %e, dims = [3] : tensor<2x2x8x8xf32> -> tensor<2x2x8xf32>
  %z1 = kiln.reshape %z : tensor<2x2x8xf32> -> tensor<2x2x8x1xf32>
  %zb = kiln.broadcast_in_dim %z1, dims = [0, 1, 2, 3] : tensor<2x2x8x1xf32> -> tensor<2x2x8x8xf32>
  %p = kiln.div %e, %zb : tensor<2x2x8x8xf32>
  %p3 = kiln.reshape %p : tensor<2x2x8x8xf32> -> tensor<4x8x8xf32>
  %v3 = kiln.reshape %v : tensor<2x2x8x4xf32> -> tensor<4x8x4xf32>
  %o3 = kiln.matmul %p3, %v3 : tensor<4x8x8xf32>, tensor<4x8x4xf32> -> tensor<4x8x4xf32>
  %o = kiln.reshape %o3 : tensor<4x8x4xf32> -> tensor<2x2x8x4xf32>
  return %o : tensor<2x2x8x4xf32>
}

func.func @gpt_grad(%q: tensor<2x2x8x4xf32>, %k: tensor<2x2x8x4xf32>, %v: tensor<2x2x8x4xf32>, %mask: tensor<8x8xf32>, %ct: tensor<2x2x8x4xf32>) -> (tensor<2x2x8x4xf32>, tensor<2x2x8x4xf32>, tensor<2x2x8x4xf32>) {
  %g:3 = kiln.vjp @gpt(%q, %k, %v, %mask, %ct) wrt [0, 1, 2] : (tensor<2x2x8x4xf32>, tensor<2x2x8x4xf32>, tensor<2x2x8x4xf32>, tensor<8x8xf32>, tensor<2x2x8x4xf32>) -> (tensor<2x2x8x4xf32>, tensor<2x2x8x4xf32>, tensor<2x2x8x4xf32>)
  return %g#0, %g#1, %g#2 : tensor<2x2x8x4xf32>, tensor<2x2x8x4xf32>, tensor<2x2x8x4xf32>
}

func.func @masked(%q: tensor<2x2x8x4xf32>, %k: tensor<2x2x8x4xf32>, %v: tensor<2x2x8x4xf32>, %scale: tensor<f32>) -> tensor<2x2x8x4xf32> {
  %col = kiln.iota dim = 1 : tensor<8x8xi64>
  %row = kiln.iota dim = 0 : tensor<8x8xi64>
  %above = kiln.cmp gt, %col, %row : tensor<8x8xi64>
  %hide = kiln.broadcast_in_dim %above, dims = [2, 3] : tensor<8x8xi1> -> tensor<2x2x8x8xi1>
  %inf = kiln.constant dense<0xFF800000> : tensor<f32>
  %fill = kiln.broadcast_in_dim %inf, dims = [] : tensor<f32> -> tensor<2x2x8x8xf32>
  %q3 = kiln.reshape %q : tensor<2x2x8x4xf32> -> tensor<4x8x4xf32>
  %k3 = kiln.reshape %k : tensor<2x2x8x4xf32> -> tensor<4x8x4xf32>
  %s3 = kiln.matmul %q3, %k3 {transpose_b = true} : tensor<4x8x4xf32>, tensor<4x8x4xf32> -> tensor<4x8x8xf32>
  %s = kiln.reshape %s3 : tensor<4x8x8xf32> -> tensor<2x2x8x8xf32>
  %sb = kiln.broadcast_in_dim %scale, dims = [] : tensor<f32> -> tensor<2x2x8x8xf32>
  %scaled = kiln.mul %s, %sb : tensor<2x2x8x8xf32>
  %x = kiln.select %hide, %fill, %scaled : tensor<2x2x8x8xi1>, tensor<2x2x8x8xf32>
  %m = kiln.reduce_max %x, dims = [3] : tensor<2x2x8x8xf32> -> tensor<2x2x8xf32>
  %mx = kiln.broadcast_in_dim %m, dims = [0, 1, 2] : tensor<2x2x8xf32> -> tensor<2x2x8x8xf32>
  %d = kiln.sub %x, %mx : tensor<2x2x8x8xf32>
  %e = kiln.exp %d : tensor<2x2x8x8xf32>
  %z = kiln.reduce_sum %e, dims = [3] : tensor<2x2x8x8xf32> -> tensor<2x2x8xf32>
  %zb = kiln.broadcast_in_dim %z, dims = [0, 1, 2] : tensor<2x2x8xf32> -> tensor<2x2x8x8xf32>
  %p = kiln.div %e, %zb : tensor<2x2x8x8xf32>
  %p3 = kiln.reshape %p : tensor<2x2x8x8xf32> -> tensor<4x8x8xf32>
  %v3 = kiln.reshape %v : tensor<2x2x8x4xf32> -> tensor<4x8x4xf32>
  %o3 = kiln.matmul %p3, %v3 : tensor<4x8x8xf32>, tensor<4x8x4xf32> -> tensor<4x8x4xf32>
  %o = kiln.reshape %o3 : tensor<4x8x4xf32> -> tensor<2x2x8x4xf32>
  return %o : tensor<2x2x8x4xf32>
}

func.func @masked_grad(%q: tensor<2x2x8x4xf32>, %k: tensor<2x2x8x4xf32>, %v: tensor<2x2x8x4xf32>, %scale: tensor<f32>, %ct: tensor<2x2x8x4xf32>) -> (tensor<2x2x8x4xf32>, tensor<2x2x8x4xf32>, tensor<2x2x8x4xf32>) {
  %g:3 = kiln.vjp @masked(%q, %k, %v, %scale, %ct) wrt [0, 1, 2] : (tensor<2x2x8x4xf32>, tensor<2x2x8x4xf32>, tensor<2x2x8x4xf32>, tensor<f32>, tensor<2x2x8x4xf32>) -> (tensor<2x2x8x4xf32>, tensor<2x2x8x4xf32>, tensor<2x2x8x4xf32>)
  return %g#0, %g#1, %g#2 : tensor<2x2x8x4xf32>, tensor<2x2x8x4xf32>, tensor<2x2x8x4xf32>
}

func.func @cross(%q: tensor<2x6x4xf32>, %k: tensor<2x10x4xf32>, %v: tensor<2x10x5xf32>, %keep: tensor<2x10xi1>) -> tensor<2x6x5xf32> {
  %s = kiln.matmul %q, %k {transpose_b = true} : tensor<2x6x4xf32>, tensor<2x10x4xf32> -> tensor<2x6x10xf32>
  %c = kiln.constant dense<0.5> : tensor<2x6x10xf32>
  %scaled = kiln.mul %c, %s : tensor<2x6x10xf32>
  %kb = kiln.broadcast_in_dim %keep, dims = [0, 2] : tensor<2x10xi1> -> tensor<2x6x10xi1>
  %low = kiln.constant dense<-1.0e+09> : tensor<2x6x10xf32>
  %x = kiln.select %kb, %scaled, %low : tensor<2x6x10xi1>, tensor<2x6x10xf32>
  %m = kiln.reduce_max %x, dims = [2] : tensor<2x6x10xf32> -> tensor<2x6xf32>
  %mx = kiln.broadcast_in_dim %m, dims = [0, 1] : tensor<2x6xf32> -> tensor<2x6x10xf32>
  %d = kiln.sub %x, %mx : tensor<2x6x10xf32>
  %e = kiln.exp %d : tensor<2x6x10xf32>
  %z = kiln.reduce_sum %e, dims = [2] : tensor<2x6x10xf32> -> tensor<2x6xf32>
  %zb = kiln.broadcast_in_dim %z, dims = [0, 1] : tensor<2x6xf32> -> tensor<2x6x10xf32>
  %p = kiln.div %e, %zb : tensor<2x6x10xf32>
  %o = kiln.matmul %p, %v : tensor<2x6x10xf32>, tensor<2x10x5xf32> -> tensor<2x6x5xf32>
  return %o : tensor<2x6x5xf32>
}

func.func @cross_grad(%q: tensor<2x6x4xf32>, %k: tensor<2x10x4xf32>, %v: tensor<2x10x5xf32>, %keep: tensor<2x10xi1>, %ct: tensor<2x6x5xf32>) -> (tensor<2x6x4xf32>, tensor<2x10x4xf32>, tensor<2x10x5xf32>) {
  %g:3 = kiln.vjp @cross(%q, %k, %v, %keep, %ct) wrt [0, 1, 2] : (tensor<2x6x4xf32>, tensor<2x10x4xf32>, tensor<2x10x5xf32>, tensor<2x10xi1>, tensor<2x6x5xf32>) -> (tensor<2x6x4xf32>, tensor<2x10x4xf32>, tensor<2x10x5xf32>)
  return %g#0, %g#1, %g#2 : tensor<2x6x4xf32>, tensor<2x10x4xf32>, tensor<2x10x5xf32>
}

// Unshifted (exp of the scores themselves), the scale a division.
func.func @encoder(%q: tensor<3x7x4xf32>, %k: tensor<3x7x4xf32>, %v: tensor<3x7x4xf32>) -> tensor<3x7x4xf32> {
  %s = kiln.matmul %q, %k {transpose_b = true} : tensor<3x7x4xf32>, tensor<3x7x4xf32> -> tensor<3x7x7xf32>
  %c = kiln.constant dense<2.0> : tensor<3x7x7xf32>
  %x = kiln.div %s, %c : tensor<3x7x7xf32>
  %e = kiln.exp %x : tensor<3x7x7xf32>
  %z = kiln.reduce_sum %e, dims = [2] : tensor<3x7x7xf32> -> tensor<3x7xf32>
  %zb = kiln.broadcast_in_dim %z, dims = [0, 1] : tensor<3x7xf32> -> tensor<3x7x7xf32>
  %p = kiln.div %e, %zb : tensor<3x7x7xf32>
  %o = kiln.matmul %p, %v : tensor<3x7x7xf32>, tensor<3x7x4xf32> -> tensor<3x7x4xf32>
  return %o : tensor<3x7x4xf32>
}

func.func @encoder_grad(%q: tensor<3x7x4xf32>, %k: tensor<3x7x4xf32>, %v: tensor<3x7x4xf32>, %ct: tensor<3x7x4xf32>) -> (tensor<3x7x4xf32>, tensor<3x7x4xf32>, tensor<3x7x4xf32>) {
  %g:3 = kiln.vjp @encoder(%q, %k, %v, %ct) wrt [0, 1, 2] : (tensor<3x7x4xf32>, tensor<3x7x4xf32>, tensor<3x7x4xf32>, tensor<3x7x4xf32>) -> (tensor<3x7x4xf32>, tensor<3x7x4xf32>, tensor<3x7x4xf32>)
  return %g#0, %g#1, %g#2 : tensor<3x7x4xf32>, tensor<3x7x4xf32>, tensor<3x7x4xf32>
}

func.func @biased(%q: tensor<3x7x4xf32>, %k: tensor<3x7x4xf32>, %v: tensor<3x7x4xf32>, %bias: tensor<7x7xf32>) -> tensor<3x7x4xf32> {
  %s = kiln.matmul %q, %k {transpose_b = true} : tensor<3x7x4xf32>, tensor<3x7x4xf32> -> tensor<3x7x7xf32>
  %bb = kiln.broadcast_in_dim %bias, dims = [1, 2] : tensor<7x7xf32> -> tensor<3x7x7xf32>
  %x = kiln.sub %s, %bb : tensor<3x7x7xf32>
  %m = kiln.reduce_max %x, dims = [2] : tensor<3x7x7xf32> -> tensor<3x7xf32>
  %mx = kiln.broadcast_in_dim %m, dims = [0, 1] : tensor<3x7xf32> -> tensor<3x7x7xf32>
  %d = kiln.sub %x, %mx : tensor<3x7x7xf32>
  %e = kiln.exp %d : tensor<3x7x7xf32>
  %z = kiln.reduce_sum %e, dims = [2] : tensor<3x7x7xf32> -> tensor<3x7xf32>
  %zb = kiln.broadcast_in_dim %z, dims = [0, 1] : tensor<3x7xf32> -> tensor<3x7x7xf32>
  %p = kiln.div %e, %zb : tensor<3x7x7xf32>
  %o = kiln.matmul %p, %v : tensor<3x7x7xf32>, tensor<3x7x4xf32> -> tensor<3x7x4xf32>
  return %o : tensor<3x7x4xf32>
}

func.func @bias_grad(%q: tensor<3x7x4xf32>, %k: tensor<3x7x4xf32>, %v: tensor<3x7x4xf32>, %bias: tensor<7x7xf32>, %ct: tensor<3x7x4xf32>) -> (tensor<3x7x4xf32>, tensor<7x7xf32>) {
  %g:2 = kiln.vjp @biased(%q, %k, %v, %bias, %ct) wrt [0, 3] : (tensor<3x7x4xf32>, tensor<3x7x4xf32>, tensor<3x7x4xf32>, tensor<7x7xf32>, tensor<3x7x4xf32>) -> (tensor<3x7x4xf32>, tensor<7x7xf32>)
  return %g#0, %g#1 : tensor<3x7x4xf32>, tensor<7x7xf32>
}

// sum(dq · w) as a function of q and k: its gradient differentiates
// attention_grad.
func.func @first_order(%q: tensor<3x7x4xf32>, %k: tensor<3x7x4xf32>, %v: tensor<3x7x4xf32>, %ct: tensor<3x7x4xf32>, %w: tensor<3x7x4xf32>) -> tensor<f32> {
  %g:3 = kiln.vjp @encoder(%q, %k, %v, %ct) wrt [0, 1, 2] : (tensor<3x7x4xf32>, tensor<3x7x4xf32>, tensor<3x7x4xf32>, tensor<3x7x4xf32>) -> (tensor<3x7x4xf32>, tensor<3x7x4xf32>, tensor<3x7x4xf32>)
  %dw = kiln.mul %g#0, %w : tensor<3x7x4xf32>
  %vw = kiln.mul %g#2, %w : tensor<3x7x4xf32>
  %t = kiln.add %dw, %vw : tensor<3x7x4xf32>
  %s = kiln.reduce_sum %t, dims = [0, 1, 2] : tensor<3x7x4xf32> -> tensor<f32>
  return %s : tensor<f32>
}

func.func @second_order(%q: tensor<3x7x4xf32>, %k: tensor<3x7x4xf32>, %v: tensor<3x7x4xf32>, %ct: tensor<3x7x4xf32>, %w: tensor<3x7x4xf32>, %one: tensor<f32>) -> (tensor<3x7x4xf32>, tensor<3x7x4xf32>) {
  %g:2 = kiln.vjp @first_order(%q, %k, %v, %ct, %w, %one) wrt [0, 1] : (tensor<3x7x4xf32>, tensor<3x7x4xf32>, tensor<3x7x4xf32>, tensor<3x7x4xf32>, tensor<3x7x4xf32>, tensor<f32>) -> (tensor<3x7x4xf32>, tensor<3x7x4xf32>)
  return %g#0, %g#1 : tensor<3x7x4xf32>, tensor<3x7x4xf32>
}

// Several blocks of queries and keys, neither a multiple of a block: row i
// sees keys j >= i only, so rows past the first key block meet a block
// that is all -inf before any finite score; the last rows see none at all
// (NaN, as the unfused softmax gives), which the reference compares
// (NaN matches NaN).
func.func @blocks(%q: tensor<2x150x16xf32>, %k: tensor<2x140x16xf32>, %v: tensor<2x140x12xf32>, %bias: tensor<150x140xf32>) -> tensor<2x150x12xf32> {
  %s = kiln.matmul %q, %k {transpose_b = true} : tensor<2x150x16xf32>, tensor<2x140x16xf32> -> tensor<2x150x140xf32>
  %c = kiln.constant dense<0.25> : tensor<2x150x140xf32>
  %scaled = kiln.mul %s, %c : tensor<2x150x140xf32>
  %bb = kiln.broadcast_in_dim %bias, dims = [1, 2] : tensor<150x140xf32> -> tensor<2x150x140xf32>
  %biased = kiln.add %scaled, %bb : tensor<2x150x140xf32>
  %col = kiln.iota dim = 1 : tensor<150x140xi64>
  %row = kiln.iota dim = 0 : tensor<150x140xi64>
  %before = kiln.cmp lt, %col, %row : tensor<150x140xi64>
  %hide = kiln.broadcast_in_dim %before, dims = [1, 2] : tensor<150x140xi1> -> tensor<2x150x140xi1>
  %inf = kiln.constant dense<0xFF800000> : tensor<2x150x140xf32>
  %x = kiln.select %hide, %inf, %biased : tensor<2x150x140xi1>, tensor<2x150x140xf32>
  %m = kiln.reduce_max %x, dims = [2] : tensor<2x150x140xf32> -> tensor<2x150xf32>
  %mx = kiln.broadcast_in_dim %m, dims = [0, 1] : tensor<2x150xf32> -> tensor<2x150x140xf32>
  %d = kiln.sub %x, %mx : tensor<2x150x140xf32>
  %e = kiln.exp %d : tensor<2x150x140xf32>
  %z = kiln.reduce_sum %e, dims = [2] : tensor<2x150x140xf32> -> tensor<2x150xf32>
  %zb = kiln.broadcast_in_dim %z, dims = [0, 1] : tensor<2x150xf32> -> tensor<2x150x140xf32>
  %p = kiln.div %e, %zb : tensor<2x150x140xf32>
  %o = kiln.matmul %p, %v : tensor<2x150x140xf32>, tensor<2x140x12xf32> -> tensor<2x150x12xf32>
  return %o : tensor<2x150x12xf32>
}

func.func @autocast(%q: tensor<4x16x8xf32>, %k: tensor<4x8x16xf32>, %v: tensor<4x16x8xf32>, %scale: tensor<bf16>, %causal: tensor<16x16xi1>) -> tensor<4x16x8xbf16> {
  %qb = kiln.convert %q : tensor<4x16x8xf32> -> tensor<4x16x8xbf16>
  %kb = kiln.convert %k : tensor<4x8x16xf32> -> tensor<4x8x16xbf16>
  %s = kiln.matmul %qb, %kb : tensor<4x16x8xbf16>, tensor<4x8x16xbf16> -> tensor<4x16x16xbf16>
  %sb = kiln.broadcast_in_dim %scale, dims = [] : tensor<bf16> -> tensor<4x16x16xbf16>
  %scaled = kiln.mul %s, %sb : tensor<4x16x16xbf16>
  %cb = kiln.broadcast_in_dim %causal, dims = [1, 2] : tensor<16x16xi1> -> tensor<4x16x16xi1>
  %ninf = kiln.constant dense<0xFF80> : tensor<bf16>
  %nb = kiln.broadcast_in_dim %ninf, dims = [] : tensor<bf16> -> tensor<4x16x16xbf16>
  %x = kiln.select %cb, %nb, %scaled : tensor<4x16x16xi1>, tensor<4x16x16xbf16>
  %m = kiln.reduce_max %x, dims = [2] : tensor<4x16x16xbf16> -> tensor<4x16xbf16>
  %mb = kiln.broadcast_in_dim %m, dims = [0, 1] : tensor<4x16xbf16> -> tensor<4x16x16xbf16>
  %d = kiln.sub %x, %mb : tensor<4x16x16xbf16>
  %e = kiln.exp %d : tensor<4x16x16xbf16>
  %z = kiln.reduce_sum %e, dims = [2] : tensor<4x16x16xbf16> -> tensor<4x16xbf16>
  %zb = kiln.broadcast_in_dim %z, dims = [0, 1] : tensor<4x16xbf16> -> tensor<4x16x16xbf16>
  %p = kiln.div %e, %zb : tensor<4x16x16xbf16>
  %pf = kiln.convert %p : tensor<4x16x16xbf16> -> tensor<4x16x16xf32>
  %pr = kiln.reshape %pf : tensor<4x16x16xf32> -> tensor<4x16x16xf32>
  %pb = kiln.convert %pr : tensor<4x16x16xf32> -> tensor<4x16x16xbf16>
  %vb = kiln.convert %v : tensor<4x16x8xf32> -> tensor<4x16x8xbf16>
  %o = kiln.matmul %pb, %vb : tensor<4x16x16xbf16>, tensor<4x16x8xbf16> -> tensor<4x16x8xbf16>
  return %o : tensor<4x16x8xbf16>
}
func.func @autocast_grad(%q: tensor<4x16x8xf32>, %k: tensor<4x8x16xf32>, %v: tensor<4x16x8xf32>, %scale: tensor<bf16>, %causal: tensor<16x16xi1>, %do: tensor<4x16x8xbf16>) -> (tensor<4x16x8xf32>, tensor<4x8x16xf32>, tensor<4x16x8xf32>) {
  %dq, %dk, %dv = kiln.vjp @autocast(%q, %k, %v, %scale, %causal, %do) wrt [0, 1, 2] : (tensor<4x16x8xf32>, tensor<4x8x16xf32>, tensor<4x16x8xf32>, tensor<bf16>, tensor<16x16xi1>, tensor<4x16x8xbf16>) -> (tensor<4x16x8xf32>, tensor<4x8x16xf32>, tensor<4x16x8xf32>)
  return %dq, %dk, %dv : tensor<4x16x8xf32>, tensor<4x8x16xf32>, tensor<4x16x8xf32>
}
