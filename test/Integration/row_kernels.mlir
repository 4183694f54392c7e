// Row kernels (softmax, log_softmax, LayerNorm, RMSNorm, forward and
// backward) at row lengths that take each GPU mapping: rows of 1024 or
// more a block per row, shorter ones a warp per row, rows indexed by two
// dims, and a length that is no multiple of a warp. Each is one fusion
// group (with the backwards' column reductions beside it), checked against
// the reference interpreter on the CPU here; test/GPU/run_integration.py
// runs the same commands on the emulated GPU and on a real one.
// RUN: kiln-run %s --entry softmax_long --random-inputs 1 --check-reference | FileCheck %s --check-prefix=ONE
// RUN: kiln-run %s --entry layernorm_long --random-inputs 2 --check-reference | FileCheck %s --check-prefix=ONE
// RUN: kiln-run %s --entry layernorm_long_bwd --random-inputs 3 --check-reference | FileCheck %s --check-prefix=THREE
// RUN: kiln-run %s --entry rmsnorm_short_bwd --random-inputs 4 --check-reference | FileCheck %s --check-prefix=TWO
// RUN: kiln-run %s --entry log_softmax_3d_bwd --random-inputs 5 --check-reference | FileCheck %s --check-prefix=ONE
// A nest over the rows that reads an input by row (the GPU's vector path
// must not load it as a vector: its loop dim is a row dim).
// RUN: kiln-run %s --entry row_scale --random-inputs 6 --check-reference | FileCheck %s --check-prefix=ONE
// ONE: reference: out0 {{.*}} matches
// TWO-COUNT-2: reference: out{{[0-9]}} {{.*}} matches
// THREE-COUNT-3: reference: out{{[0-9]}} {{.*}} matches

func.func @softmax_long(%x: tensor<8x2048xf32>) -> tensor<8x2048xf32> {
  %m = kiln.reduce_max %x, dims = [1] : tensor<8x2048xf32> -> tensor<8xf32>
  %mb = kiln.broadcast_in_dim %m, dims = [0] : tensor<8xf32> -> tensor<8x2048xf32>
  %d = kiln.sub %x, %mb : tensor<8x2048xf32>
  %e = kiln.exp %d : tensor<8x2048xf32>
  %s = kiln.reduce_sum %e, dims = [1] : tensor<8x2048xf32> -> tensor<8xf32>
  %sb = kiln.broadcast_in_dim %s, dims = [0] : tensor<8xf32> -> tensor<8x2048xf32>
  %y = kiln.div %e, %sb : tensor<8x2048xf32>
  return %y : tensor<8x2048xf32>
}

func.func @layernorm_long(%x: tensor<4x1024xf32>, %g: tensor<1024xf32>, %b: tensor<1024xf32>) -> tensor<4x1024xf32> {
  %inv_n = kiln.constant dense<0.0009765625> : tensor<4xf32>
  %eps = kiln.constant dense<1.0e-5> : tensor<4xf32>
  %s = kiln.reduce_sum %x, dims = [1] : tensor<4x1024xf32> -> tensor<4xf32>
  %mean = kiln.mul %s, %inv_n : tensor<4xf32>
  %mb = kiln.broadcast_in_dim %mean, dims = [0] : tensor<4xf32> -> tensor<4x1024xf32>
  %xc = kiln.sub %x, %mb : tensor<4x1024xf32>
  %sq = kiln.mul %xc, %xc : tensor<4x1024xf32>
  %ss = kiln.reduce_sum %sq, dims = [1] : tensor<4x1024xf32> -> tensor<4xf32>
  %var = kiln.mul %ss, %inv_n : tensor<4xf32>
  %ve = kiln.add %var, %eps : tensor<4xf32>
  %rstd = kiln.rsqrt %ve : tensor<4xf32>
  %rb = kiln.broadcast_in_dim %rstd, dims = [0] : tensor<4xf32> -> tensor<4x1024xf32>
  %xh = kiln.mul %xc, %rb : tensor<4x1024xf32>
  %gb = kiln.broadcast_in_dim %g, dims = [1] : tensor<1024xf32> -> tensor<4x1024xf32>
  %bb = kiln.broadcast_in_dim %b, dims = [1] : tensor<1024xf32> -> tensor<4x1024xf32>
  %y0 = kiln.mul %xh, %gb : tensor<4x1024xf32>
  %y = kiln.add %y0, %bb : tensor<4x1024xf32>
  return %y : tensor<4x1024xf32>
}

func.func @layernorm_long2(%x: tensor<2x1024xf32>, %g: tensor<1024xf32>, %b: tensor<1024xf32>) -> tensor<2x1024xf32> {
  %inv_n = kiln.constant dense<0.0009765625> : tensor<2xf32>
  %eps = kiln.constant dense<1.0e-5> : tensor<2xf32>
  %s = kiln.reduce_sum %x, dims = [1] : tensor<2x1024xf32> -> tensor<2xf32>
  %mean = kiln.mul %s, %inv_n : tensor<2xf32>
  %mb = kiln.broadcast_in_dim %mean, dims = [0] : tensor<2xf32> -> tensor<2x1024xf32>
  %xc = kiln.sub %x, %mb : tensor<2x1024xf32>
  %sq = kiln.mul %xc, %xc : tensor<2x1024xf32>
  %ss = kiln.reduce_sum %sq, dims = [1] : tensor<2x1024xf32> -> tensor<2xf32>
  %var = kiln.mul %ss, %inv_n : tensor<2xf32>
  %ve = kiln.add %var, %eps : tensor<2xf32>
  %rstd = kiln.rsqrt %ve : tensor<2xf32>
  %rb = kiln.broadcast_in_dim %rstd, dims = [0] : tensor<2xf32> -> tensor<2x1024xf32>
  %xh = kiln.mul %xc, %rb : tensor<2x1024xf32>
  %gb = kiln.broadcast_in_dim %g, dims = [1] : tensor<1024xf32> -> tensor<2x1024xf32>
  %bb = kiln.broadcast_in_dim %b, dims = [1] : tensor<1024xf32> -> tensor<2x1024xf32>
  %y0 = kiln.mul %xh, %gb : tensor<2x1024xf32>
  %y = kiln.add %y0, %bb : tensor<2x1024xf32>
  return %y : tensor<2x1024xf32>
}

func.func @layernorm_long_bwd(%a0: tensor<2x1024xf32>, %a1: tensor<1024xf32>, %a2: tensor<1024xf32>, %a3: tensor<2x1024xf32>) -> (tensor<2x1024xf32>, tensor<1024xf32>, tensor<1024xf32>) {
  %r0, %r1, %r2 = kiln.vjp @layernorm_long2(%a0, %a1, %a2, %a3) wrt [0, 1, 2] : (tensor<2x1024xf32>, tensor<1024xf32>, tensor<1024xf32>, tensor<2x1024xf32>) -> (tensor<2x1024xf32>, tensor<1024xf32>, tensor<1024xf32>)
  return %r0, %r1, %r2 : tensor<2x1024xf32>, tensor<1024xf32>, tensor<1024xf32>
}

func.func @rmsnorm_short(%x: tensor<16x96xf32>, %g: tensor<96xf32>) -> tensor<16x96xf32> {
  %inv_n = kiln.constant dense<0.010416666666666666> : tensor<16xf32>
  %eps = kiln.constant dense<1.0e-6> : tensor<16xf32>
  %sq = kiln.mul %x, %x : tensor<16x96xf32>
  %ss = kiln.reduce_sum %sq, dims = [1] : tensor<16x96xf32> -> tensor<16xf32>
  %ms = kiln.mul %ss, %inv_n : tensor<16xf32>
  %me = kiln.add %ms, %eps : tensor<16xf32>
  %r = kiln.rsqrt %me : tensor<16xf32>
  %rb = kiln.broadcast_in_dim %r, dims = [0] : tensor<16xf32> -> tensor<16x96xf32>
  %gb = kiln.broadcast_in_dim %g, dims = [1] : tensor<96xf32> -> tensor<16x96xf32>
  %n = kiln.mul %x, %rb : tensor<16x96xf32>
  %y = kiln.mul %n, %gb : tensor<16x96xf32>
  return %y : tensor<16x96xf32>
}

func.func @rmsnorm_short_bwd(%a0: tensor<16x96xf32>, %a1: tensor<96xf32>, %a2: tensor<16x96xf32>) -> (tensor<16x96xf32>, tensor<96xf32>) {
  %r0, %r1 = kiln.vjp @rmsnorm_short(%a0, %a1, %a2) wrt [0, 1] : (tensor<16x96xf32>, tensor<96xf32>, tensor<16x96xf32>) -> (tensor<16x96xf32>, tensor<96xf32>)
  return %r0, %r1 : tensor<16x96xf32>, tensor<96xf32>
}

func.func @log_softmax_3d(%x: tensor<2x3x40xf32>) -> tensor<2x3x40xf32> {
  %m = kiln.reduce_max %x, dims = [2] : tensor<2x3x40xf32> -> tensor<2x3xf32>
  %mb = kiln.broadcast_in_dim %m, dims = [0, 1] : tensor<2x3xf32> -> tensor<2x3x40xf32>
  %d = kiln.sub %x, %mb : tensor<2x3x40xf32>
  %e = kiln.exp %d : tensor<2x3x40xf32>
  %s = kiln.reduce_sum %e, dims = [2] : tensor<2x3x40xf32> -> tensor<2x3xf32>
  %l = kiln.log %s : tensor<2x3xf32>
  %lb = kiln.broadcast_in_dim %l, dims = [0, 1] : tensor<2x3xf32> -> tensor<2x3x40xf32>
  %y = kiln.sub %d, %lb : tensor<2x3x40xf32>
  return %y : tensor<2x3x40xf32>
}

func.func @log_softmax_3d_bwd(%a0: tensor<2x3x40xf32>, %a1: tensor<2x3x40xf32>) -> (tensor<2x3x40xf32>) {
  %r0 = kiln.vjp @log_softmax_3d(%a0, %a1) wrt [0] : (tensor<2x3x40xf32>, tensor<2x3x40xf32>) -> (tensor<2x3x40xf32>)
  return %r0 : tensor<2x3x40xf32>
}

func.func @row_scale(%x: tensor<16x64xf32>, %w: tensor<16xf32>) -> tensor<16x64xf32> {
  %s = kiln.reduce_sum %x, dims = [1] : tensor<16x64xf32> -> tensor<16xf32>
  %a = kiln.abs %s : tensor<16xf32>
  %two = kiln.constant dense<2.0> : tensor<16xf32>
  %t = kiln.add %a, %two : tensor<16xf32>
  %aw = kiln.abs %w : tensor<16xf32>
  %u = kiln.add %t, %aw : tensor<16xf32>
  %r = kiln.rsqrt %u : tensor<16xf32>
  %rb = kiln.broadcast_in_dim %r, dims = [0] : tensor<16xf32> -> tensor<16x64xf32>
  %y = kiln.mul %x, %rb : tensor<16x64xf32>
  return %y : tensor<16x64xf32>
}
