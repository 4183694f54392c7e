// Compositions of layout ops with each other and with reductions and
// matmul (views of views, slices of concats, reductions of broadcasts),
// compiled for the CPU and compared with the reference interpreter.

// RUN: kiln-run %s --entry t4 --random-inputs 91 --check-reference | FileCheck %s --check-prefix=T4
// RUN: kiln-run %s --entry big64 --random-inputs 92 --check-reference | FileCheck %s --check-prefix=BIG64
// RUN: kiln-run %s --entry tsl --random-inputs 93 --check-reference | FileCheck %s --check-prefix=TSL
// RUN: kiln-run %s --entry slice_of_concat --random-inputs 94 --check-reference | FileCheck %s --check-prefix=SOC
// RUN: kiln-run %s --entry bcast_reduce --random-inputs 95 --check-reference | FileCheck %s --check-prefix=BR
// RUN: kiln-run %s --entry concat_self_feed --random-inputs 96 --check-reference | FileCheck %s --check-prefix=CSF
// RUN: kiln-run %s --entry matmul_k1_batched --random-inputs 97 --check-reference | FileCheck %s --check-prefix=MK1
// RUN: kiln-run %s --entry reduce_after_reduce --random-inputs 98 --check-reference | FileCheck %s --check-prefix=RR

// 4-D transposes.
// T4: reference: out0 tensor<5x2x4x3xf32> matches, max abs error 0
// T4: reference: out1 tensor<3x2x5x4xf32> matches, max abs error 0
// T4-NOT: matches
func.func @t4(%x: tensor<2x3x4x5xf32>) -> (tensor<5x2x4x3xf32>, tensor<3x2x5x4xf32>) {
  %0 = kiln.transpose %x, perm = [3, 0, 2, 1] : tensor<2x3x4x5xf32> -> tensor<5x2x4x3xf32>
  %1 = kiln.transpose %x, perm = [1, 0, 3, 2] : tensor<2x3x4x5xf32> -> tensor<3x2x5x4xf32>
  return %0, %1 : tensor<5x2x4x3xf32>, tensor<3x2x5x4xf32>
}

// A large f64 elementwise op feeding a column sum.
// BIG64: reference: out0 tensor<64x1000xf64> matches
// BIG64: reference: out1 tensor<1000xf64> matches
// BIG64-NOT: matches
func.func @big64(%x: tensor<64x1000xf64>) -> (tensor<64x1000xf64>, tensor<1000xf64>) {
  %0 = kiln.tanh %x : tensor<64x1000xf64>
  %1 = kiln.reduce_sum %0, dims = [0] : tensor<64x1000xf64> -> tensor<1000xf64>
  return %0, %1 : tensor<64x1000xf64>, tensor<1000xf64>
}

// transpose -> slice -> exp -> reshape -> slice -> reshape -> concat ->
// transpose twice -> add.
// TSL: reference: out0 tensor<4x8xf32> matches
// TSL-NOT: matches
func.func @tsl(%x: tensor<8x16xf32>) -> tensor<4x8xf32> {
  %t = kiln.transpose %x, perm = [1, 0] : tensor<8x16xf32> -> tensor<16x8xf32>
  %s = kiln.slice %t, offsets = [3, 2], sizes = [4, 5] : tensor<16x8xf32> -> tensor<4x5xf32>
  %e = kiln.exp %s : tensor<4x5xf32>
  %r = kiln.reshape %e : tensor<4x5xf32> -> tensor<20xf32>
  %p = kiln.slice %r, offsets = [1], sizes = [16] : tensor<20xf32> -> tensor<16xf32>
  %q = kiln.reshape %p : tensor<16xf32> -> tensor<2x8xf32>
  %c = kiln.concat %q, %q dim = 0 : tensor<2x8xf32>, tensor<2x8xf32> -> tensor<4x8xf32>
  %tt = kiln.transpose %c, perm = [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  %u = kiln.transpose %tt, perm = [1, 0] : tensor<8x4xf32> -> tensor<4x8xf32>
  %v = kiln.add %u, %c : tensor<4x8xf32>
  return %v : tensor<4x8xf32>
}

// Slices that straddle the seams of concats along dim 1 and dim 0.
// SOC: reference: out0 tensor<4x6xf32> matches, max abs error 0
// SOC: reference: out1 tensor<3x8xf32> matches, max abs error 0
// SOC-NOT: matches
func.func @slice_of_concat(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> (tensor<4x6xf32>, tensor<3x8xf32>) {
  %c = kiln.concat %a, %b dim = 1 : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x16xf32>
  %0 = kiln.slice %c, offsets = [0, 5], sizes = [4, 6] : tensor<4x16xf32> -> tensor<4x6xf32>
  %d = kiln.concat %a, %b dim = 0 : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<8x8xf32>
  %1 = kiln.slice %d, offsets = [3, 0], sizes = [3, 8] : tensor<8x8xf32> -> tensor<3x8xf32>
  return %0, %1 : tensor<4x6xf32>, tensor<3x8xf32>
}

// Reductions of a broadcast: along the new dim and along the kept dim.
// BR: reference: out0 tensor<8xf32> matches
// BR: reference: out1 tensor<5xf32> matches, max abs error 0
// BR-NOT: matches
func.func @bcast_reduce(%a: tensor<8xf32>) -> (tensor<8xf32>, tensor<5xf32>) {
  %b = kiln.broadcast_in_dim %a, dims = [1] : tensor<8xf32> -> tensor<5x8xf32>
  %0 = kiln.reduce_sum %b, dims = [0] : tensor<5x8xf32> -> tensor<8xf32>
  %1 = kiln.reduce_max %b, dims = [1] : tensor<5x8xf32> -> tensor<5xf32>
  return %0, %1 : tensor<8xf32>, tensor<5xf32>
}

// One value concatenated twice, around an argument.
// CSF: reference: out0 tensor<4x24xf32> matches
// CSF-NOT: matches
func.func @concat_self_feed(%a: tensor<4x8xf32>) -> tensor<4x24xf32> {
  %e = kiln.exp %a : tensor<4x8xf32>
  %c = kiln.concat %e, %a, %e dim = 1 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x24xf32>
  return %c : tensor<4x24xf32>
}

// A batched outer product (K = 1) with both operands transposed.
// MK1: reference: out0 tensor<3x4x5xf32> matches
// MK1-NOT: matches
func.func @matmul_k1_batched(%a: tensor<3x1x4xf32>, %b: tensor<3x5x1xf32>) -> tensor<3x4x5xf32> {
  %0 = kiln.matmul %a, %b {transpose_a = true, transpose_b = true} : tensor<3x1x4xf32>, tensor<3x5x1xf32> -> tensor<3x4x5xf32>
  return %0 : tensor<3x4x5xf32>
}

// A reduction of a reduction of a reduction.
// RR: reference: out0 tensor<8xf32> matches
// RR: reference: out1 tensor<f32> matches
// RR-NOT: matches
func.func @reduce_after_reduce(%x: tensor<16x32x8xf32>) -> (tensor<8xf32>, tensor<f32>) {
  %0 = kiln.reduce_sum %x, dims = [1] : tensor<16x32x8xf32> -> tensor<16x8xf32>
  %1 = kiln.reduce_max %0, dims = [0] : tensor<16x8xf32> -> tensor<8xf32>
  %2 = kiln.reduce_sum %1, dims = [0] : tensor<8xf32> -> tensor<f32>
  return %1, %2 : tensor<8xf32>, tensor<f32>
}
