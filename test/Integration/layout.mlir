// Shape and layout ops (broadcast_in_dim, reshape, transpose, slice, concat),
// compiled for the CPU and compared with the reference interpreter.

// RUN: kiln-run %s --entry broadcast_f32 --random-inputs 41 --check-reference | FileCheck %s --check-prefix=BCAST
// RUN: kiln-run %s --entry broadcast_small --random-inputs 42 --check-reference | FileCheck %s --check-prefix=BSMALL
// RUN: kiln-run %s --entry reshape_f32 --random-inputs 43 --check-reference | FileCheck %s --check-prefix=RESHAPE
// RUN: kiln-run %s --entry reshape_rank0 --random-inputs 44 --check-reference | FileCheck %s --check-prefix=RANK0
// RUN: kiln-run %s --entry transpose_f32 --random-inputs 45 --check-reference | FileCheck %s --check-prefix=TRANSPOSE
// RUN: kiln-run %s --entry slice_f32 --random-inputs 46 --check-reference | FileCheck %s --check-prefix=SLICE
// RUN: kiln-run %s --entry concat_f32 --random-inputs 47 --check-reference | FileCheck %s --check-prefix=CONCAT
// RUN: kiln-run %s --entry layout_f64 --random-inputs 48 --check-reference | FileCheck %s --check-prefix=F64
// RUN: kiln-run %s --entry layout_f16_i1 --random-inputs 49 --check-reference | FileCheck %s --check-prefix=F16
// RUN: kiln-run %s --entry layout_generic --random-inputs 50 --check-reference | FileCheck %s --check-prefix=GENERIC
// Known values on constants (no randomness).
// RUN: kiln-run %s --entry layout_known --print --check-reference | FileCheck %s --check-prefix=KNOWN

// New leading dim (a bias row), new trailing dim (a per-row scale), size-1
// expansion of either dim, and a rank-0 operand.
// BCAST: reference: out0 tensor<64x1000xf32> matches, max abs error 0
// BCAST: reference: out1 tensor<64x1000xf32> matches, max abs error 0
// BCAST: reference: out2 tensor<64x1000xf32> matches, max abs error 0
// BCAST: reference: out3 tensor<64x1000xf32> matches, max abs error 0
// BCAST: reference: out4 tensor<64x1000xf32> matches, max abs error 0
// BCAST: reference: out5 tensor<64x1000xf32> matches
// BCAST-NOT: matches
func.func @broadcast_f32(%x: tensor<64x1000xf32>, %row: tensor<1000xf32>,
                         %col: tensor<64xf32>, %row1: tensor<1x1000xf32>,
                         %col1: tensor<64x1xf32>, %s: tensor<f32>)
    -> (tensor<64x1000xf32>, tensor<64x1000xf32>, tensor<64x1000xf32>,
        tensor<64x1000xf32>, tensor<64x1000xf32>, tensor<64x1000xf32>) {
  %0 = kiln.broadcast_in_dim %row, dims = [1] : tensor<1000xf32> -> tensor<64x1000xf32>
  %1 = kiln.broadcast_in_dim %col, dims = [0] : tensor<64xf32> -> tensor<64x1000xf32>
  %2 = kiln.broadcast_in_dim %row1, dims = [0, 1] : tensor<1x1000xf32> -> tensor<64x1000xf32>
  %3 = kiln.broadcast_in_dim %col1, dims = [0, 1] : tensor<64x1xf32> -> tensor<64x1000xf32>
  %4 = kiln.broadcast_in_dim %s, dims = [] : tensor<f32> -> tensor<64x1000xf32>
  // x * col + row (the usual scale-and-bias pattern).
  %m = kiln.mul %x, %1 : tensor<64x1000xf32>
  %5 = kiln.add %m, %0 : tensor<64x1000xf32>
  return %0, %1, %2, %3, %4, %5
      : tensor<64x1000xf32>, tensor<64x1000xf32>, tensor<64x1000xf32>,
        tensor<64x1000xf32>, tensor<64x1000xf32>, tensor<64x1000xf32>
}

// Rank 3 results: new dims in the middle and at both ends, size-1 expansion
// next to a kept dim, and the identity broadcast.
// BSMALL: reference: out0 tensor<4x5x7xf32> matches, max abs error 0
// BSMALL: reference: out1 tensor<4x5x7xf32> matches, max abs error 0
// BSMALL: reference: out2 tensor<4x5x7xf32> matches, max abs error 0
// BSMALL: reference: out3 tensor<4x5x7xf32> matches, max abs error 0
// BSMALL: reference: out4 tensor<5x7xf32> matches, max abs error 0
// BSMALL-NOT: matches
func.func @broadcast_small(%a: tensor<4x7xf32>, %b: tensor<5xf32>,
                           %c: tensor<5x1xf32>, %d: tensor<1x5x1xf32>,
                           %e: tensor<5x7xf32>)
    -> (tensor<4x5x7xf32>, tensor<4x5x7xf32>, tensor<4x5x7xf32>,
        tensor<4x5x7xf32>, tensor<5x7xf32>) {
  %0 = kiln.broadcast_in_dim %a, dims = [0, 2] : tensor<4x7xf32> -> tensor<4x5x7xf32>
  %1 = kiln.broadcast_in_dim %b, dims = [1] : tensor<5xf32> -> tensor<4x5x7xf32>
  %2 = kiln.broadcast_in_dim %c, dims = [1, 2] : tensor<5x1xf32> -> tensor<4x5x7xf32>
  %3 = kiln.broadcast_in_dim %d, dims = [0, 1, 2] : tensor<1x5x1xf32> -> tensor<4x5x7xf32>
  %4 = kiln.broadcast_in_dim %e, dims = [0, 1] : tensor<5x7xf32> -> tensor<5x7xf32>
  return %0, %1, %2, %3, %4 : tensor<4x5x7xf32>, tensor<4x5x7xf32>,
      tensor<4x5x7xf32>, tensor<4x5x7xf32>, tensor<5x7xf32>
}

// Reshapes between ranks 1, 2, 3 and 4, around elementwise ops.
// RESHAPE: reference: out0 tensor<64000xf32> matches, max abs error 0
// RESHAPE: reference: out1 tensor<320x200xf32> matches, max abs error 0
// RESHAPE: reference: out2 tensor<8x8x1000xf32> matches
// RESHAPE: reference: out3 tensor<2x32x10x100xf32> matches
// RESHAPE: reference: out4 tensor<1000x64xf32> matches
// RESHAPE-NOT: matches
func.func @reshape_f32(%x: tensor<64x1000xf32>)
    -> (tensor<64000xf32>, tensor<320x200xf32>, tensor<8x8x1000xf32>,
        tensor<2x32x10x100xf32>, tensor<1000x64xf32>) {
  %0 = kiln.reshape %x : tensor<64x1000xf32> -> tensor<64000xf32>
  %1 = kiln.reshape %0 : tensor<64000xf32> -> tensor<320x200xf32>
  %e = kiln.exp %x : tensor<64x1000xf32>
  %2 = kiln.reshape %e : tensor<64x1000xf32> -> tensor<8x8x1000xf32>
  %3 = kiln.reshape %2 : tensor<8x8x1000xf32> -> tensor<2x32x10x100xf32>
  %r = kiln.reshape %x : tensor<64x1000xf32> -> tensor<1000x64xf32>
  %4 = kiln.tanh %r : tensor<1000x64xf32>
  return %0, %1, %2, %3, %4 : tensor<64000xf32>, tensor<320x200xf32>,
      tensor<8x8x1000xf32>, tensor<2x32x10x100xf32>, tensor<1000x64xf32>
}

// Reshapes to and from rank 0 and rank 1.
// RANK0: reference: out0 tensor<f32> matches, max abs error 0
// RANK0: reference: out1 tensor<1xf32> matches, max abs error 0
// RANK0: reference: out2 tensor<1x1x1xf32> matches
// RANK0: reference: out3 tensor<f32> matches, max abs error 0
// RANK0: reference: out4 tensor<12xf32> matches, max abs error 0
// RANK0: reference: out5 tensor<3x4xf32> matches, max abs error 0
// RANK0-NOT: matches
func.func @reshape_rank0(%a: tensor<1x1xf32>, %b: tensor<f32>,
                         %c: tensor<1xf32>, %d: tensor<3x4xf32>,
                         %e: tensor<12xf32>)
    -> (tensor<f32>, tensor<1xf32>, tensor<1x1x1xf32>, tensor<f32>,
        tensor<12xf32>, tensor<3x4xf32>) {
  %0 = kiln.reshape %a : tensor<1x1xf32> -> tensor<f32>
  %1 = kiln.reshape %b : tensor<f32> -> tensor<1xf32>
  %n = kiln.neg %b : tensor<f32>
  %2 = kiln.reshape %n : tensor<f32> -> tensor<1x1x1xf32>
  %3 = kiln.reshape %c : tensor<1xf32> -> tensor<f32>
  %4 = kiln.reshape %d : tensor<3x4xf32> -> tensor<12xf32>
  %5 = kiln.reshape %e : tensor<12xf32> -> tensor<3x4xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<f32>, tensor<1xf32>,
      tensor<1x1x1xf32>, tensor<f32>, tensor<12xf32>, tensor<3x4xf32>
}

// 2-D and every 3-D permutation, one of them feeding an elementwise op.
// TRANSPOSE: reference: out0 tensor<1000x64xf32> matches, max abs error 0
// TRANSPOSE: reference: out1 tensor<3x5x4xf32> matches, max abs error 0
// TRANSPOSE: reference: out2 tensor<4x3x5xf32> matches, max abs error 0
// TRANSPOSE: reference: out3 tensor<4x5x3xf32> matches, max abs error 0
// TRANSPOSE: reference: out4 tensor<5x3x4xf32> matches, max abs error 0
// TRANSPOSE: reference: out5 tensor<5x4x3xf32> matches, max abs error 0
// TRANSPOSE: reference: out6 tensor<3x4x5xf32> matches, max abs error 0
// TRANSPOSE: reference: out7 tensor<64x1000xf32> matches
// TRANSPOSE: reference: out8 tensor<32x16x48xf32> matches, max abs error 0
// TRANSPOSE-NOT: matches
func.func @transpose_f32(%x: tensor<64x1000xf32>, %y: tensor<3x4x5xf32>,
                         %w: tensor<1000x64xf32>, %z: tensor<16x48x32xf32>)
    -> (tensor<1000x64xf32>, tensor<3x5x4xf32>, tensor<4x3x5xf32>,
        tensor<4x5x3xf32>, tensor<5x3x4xf32>, tensor<5x4x3xf32>,
        tensor<3x4x5xf32>, tensor<64x1000xf32>, tensor<32x16x48xf32>) {
  %0 = kiln.transpose %x, perm = [1, 0] : tensor<64x1000xf32> -> tensor<1000x64xf32>
  %1 = kiln.transpose %y, perm = [0, 2, 1] : tensor<3x4x5xf32> -> tensor<3x5x4xf32>
  %2 = kiln.transpose %y, perm = [1, 0, 2] : tensor<3x4x5xf32> -> tensor<4x3x5xf32>
  %3 = kiln.transpose %y, perm = [1, 2, 0] : tensor<3x4x5xf32> -> tensor<4x5x3xf32>
  %4 = kiln.transpose %y, perm = [2, 0, 1] : tensor<3x4x5xf32> -> tensor<5x3x4xf32>
  %5 = kiln.transpose %y, perm = [2, 1, 0] : tensor<3x4x5xf32> -> tensor<5x4x3xf32>
  %6 = kiln.transpose %y, perm = [0, 1, 2] : tensor<3x4x5xf32> -> tensor<3x4x5xf32>
  %wt = kiln.transpose %w, perm = [1, 0] : tensor<1000x64xf32> -> tensor<64x1000xf32>
  %7 = kiln.add %x, %wt : tensor<64x1000xf32>
  %8 = kiln.transpose %z, perm = [2, 0, 1] : tensor<16x48x32xf32> -> tensor<32x16x48xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8
      : tensor<1000x64xf32>, tensor<3x5x4xf32>, tensor<4x3x5xf32>,
        tensor<4x5x3xf32>, tensor<5x3x4xf32>, tensor<5x4x3xf32>,
        tensor<3x4x5xf32>, tensor<64x1000xf32>, tensor<32x16x48xf32>
}

// Slices: the chunks of an LSTM gate tensor, an interior 3-D box, a 1-D
// window, the whole tensor, and a slice feeding elementwise math.
// SLICE: reference: out0 tensor<64x250xf32> matches, max abs error 0
// SLICE: reference: out1 tensor<64x250xf32> matches, max abs error 0
// SLICE: reference: out2 tensor<64x250xf32> matches, max abs error 0
// SLICE: reference: out3 tensor<64x250xf32> matches, max abs error 0
// SLICE: reference: out4 tensor<2x3x4xf32> matches, max abs error 0
// SLICE: reference: out5 tensor<5xf32> matches, max abs error 0
// SLICE: reference: out6 tensor<4x6x8xf32> matches, max abs error 0
// SLICE: reference: out7 tensor<63x999xf32> matches
// SLICE-NOT: matches
func.func @slice_f32(%x: tensor<64x1000xf32>, %y: tensor<4x6x8xf32>,
                     %v: tensor<17xf32>)
    -> (tensor<64x250xf32>, tensor<64x250xf32>, tensor<64x250xf32>,
        tensor<64x250xf32>, tensor<2x3x4xf32>, tensor<5xf32>,
        tensor<4x6x8xf32>, tensor<63x999xf32>) {
  %0 = kiln.slice %x, offsets = [0, 0], sizes = [64, 250] : tensor<64x1000xf32> -> tensor<64x250xf32>
  %1 = kiln.slice %x, offsets = [0, 250], sizes = [64, 250] : tensor<64x1000xf32> -> tensor<64x250xf32>
  %2 = kiln.slice %x, offsets = [0, 500], sizes = [64, 250] : tensor<64x1000xf32> -> tensor<64x250xf32>
  %3 = kiln.slice %x, offsets = [0, 750], sizes = [64, 250] : tensor<64x1000xf32> -> tensor<64x250xf32>
  %4 = kiln.slice %y, offsets = [1, 2, 3], sizes = [2, 3, 4] : tensor<4x6x8xf32> -> tensor<2x3x4xf32>
  %5 = kiln.slice %v, offsets = [11], sizes = [5] : tensor<17xf32> -> tensor<5xf32>
  %6 = kiln.slice %y, offsets = [0, 0, 0], sizes = [4, 6, 8] : tensor<4x6x8xf32> -> tensor<4x6x8xf32>
  // x[1:, 1:] - x[:-1, :-1]
  %a = kiln.slice %x, offsets = [1, 1], sizes = [63, 999] : tensor<64x1000xf32> -> tensor<63x999xf32>
  %b = kiln.slice %x, offsets = [0, 0], sizes = [63, 999] : tensor<64x1000xf32> -> tensor<63x999xf32>
  %7 = kiln.sub %a, %b : tensor<63x999xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7
      : tensor<64x250xf32>, tensor<64x250xf32>, tensor<64x250xf32>,
        tensor<64x250xf32>, tensor<2x3x4xf32>, tensor<5xf32>,
        tensor<4x6x8xf32>, tensor<63x999xf32>
}

// Concats along dim 0 and dim 1, unequal sizes, three operands, a single
// operand, dim 2 of a 3-D tensor, and computed operands.
// CONCAT: reference: out0 tensor<96x1000xf32> matches, max abs error 0
// CONCAT: reference: out1 tensor<64x1003xf32> matches, max abs error 0
// CONCAT: reference: out2 tensor<64x1500xf32> matches, max abs error 0
// CONCAT: reference: out3 tensor<64x1000xf32> matches, max abs error 0
// CONCAT: reference: out4 tensor<2x3x9xf32> matches, max abs error 0
// CONCAT: reference: out5 tensor<64x2000xf32> matches
// CONCAT: reference: out6 tensor<105x1000xf32> matches, max abs error 0
// CONCAT-NOT: matches
func.func @concat_f32(%x: tensor<64x1000xf32>, %y: tensor<32x1000xf32>,
                      %z: tensor<64x3xf32>, %w: tensor<64x497xf32>,
                      %a: tensor<2x3x4xf32>, %b: tensor<2x3x5xf32>,
                      %r: tensor<9x1000xf32>)
    -> (tensor<96x1000xf32>, tensor<64x1003xf32>, tensor<64x1500xf32>,
        tensor<64x1000xf32>, tensor<2x3x9xf32>, tensor<64x2000xf32>,
        tensor<105x1000xf32>) {
  %0 = kiln.concat %x, %y dim = 0 : tensor<64x1000xf32>, tensor<32x1000xf32> -> tensor<96x1000xf32>
  %1 = kiln.concat %x, %z dim = 1 : tensor<64x1000xf32>, tensor<64x3xf32> -> tensor<64x1003xf32>
  %2 = kiln.concat %z, %x, %w dim = 1 : tensor<64x3xf32>, tensor<64x1000xf32>, tensor<64x497xf32> -> tensor<64x1500xf32>
  %3 = kiln.concat %x dim = 1 : tensor<64x1000xf32> -> tensor<64x1000xf32>
  %4 = kiln.concat %a, %b dim = 2 : tensor<2x3x4xf32>, tensor<2x3x5xf32> -> tensor<2x3x9xf32>
  %s = kiln.sigmoid %x : tensor<64x1000xf32>
  %t = kiln.tanh %x : tensor<64x1000xf32>
  %5 = kiln.concat %s, %t dim = 1 : tensor<64x1000xf32>, tensor<64x1000xf32> -> tensor<64x2000xf32>
  %6 = kiln.concat %y, %r, %x dim = 0 : tensor<32x1000xf32>, tensor<9x1000xf32>, tensor<64x1000xf32> -> tensor<105x1000xf32>
  return %0, %1, %2, %3, %4, %5, %6
      : tensor<96x1000xf32>, tensor<64x1003xf32>, tensor<64x1500xf32>,
        tensor<64x1000xf32>, tensor<2x3x9xf32>, tensor<64x2000xf32>,
        tensor<105x1000xf32>
}

// F64-COUNT-5: xf64> matches, max abs error 0
// F64-NOT: matches
func.func @layout_f64(%x: tensor<6x10xf64>, %b: tensor<10xf64>)
    -> (tensor<3x6x10xf64>, tensor<10x6xf64>, tensor<6x4xf64>,
        tensor<12x10xf64>, tensor<60xf64>) {
  %0 = kiln.broadcast_in_dim %x, dims = [1, 2] : tensor<6x10xf64> -> tensor<3x6x10xf64>
  %1 = kiln.transpose %x, perm = [1, 0] : tensor<6x10xf64> -> tensor<10x6xf64>
  %2 = kiln.slice %x, offsets = [0, 3], sizes = [6, 4] : tensor<6x10xf64> -> tensor<6x4xf64>
  %3 = kiln.concat %x, %x dim = 0 : tensor<6x10xf64>, tensor<6x10xf64> -> tensor<12x10xf64>
  %4 = kiln.reshape %x : tensor<6x10xf64> -> tensor<60xf64>
  return %0, %1, %2, %3, %4 : tensor<3x6x10xf64>, tensor<10x6xf64>,
      tensor<6x4xf64>, tensor<12x10xf64>, tensor<60xf64>
}

// Layout ops move f16, bf16 and i1 elements too.
// F16: reference: out0 tensor<7x5xf16> matches, max abs error 0
// F16: reference: out1 tensor<3x7x5xbf16> matches, max abs error 0
// F16: reference: out2 tensor<5x7xi1> matches, max abs error 0
// F16: reference: out3 tensor<14x5xi1> matches, max abs error 0
// F16: reference: out4 tensor<35xbf16> matches, max abs error 0
// F16: reference: out5 tensor<7x2xf16> matches, max abs error 0
// F16-NOT: matches
func.func @layout_f16_i1(%h: tensor<5x7xf16>, %b: tensor<7x5xbf16>,
                         %p: tensor<7x5xi1>)
    -> (tensor<7x5xf16>, tensor<3x7x5xbf16>, tensor<5x7xi1>,
        tensor<14x5xi1>, tensor<35xbf16>, tensor<7x2xf16>) {
  %0 = kiln.transpose %h, perm = [1, 0] : tensor<5x7xf16> -> tensor<7x5xf16>
  %1 = kiln.broadcast_in_dim %b, dims = [1, 2] : tensor<7x5xbf16> -> tensor<3x7x5xbf16>
  %2 = kiln.transpose %p, perm = [1, 0] : tensor<7x5xi1> -> tensor<5x7xi1>
  %3 = kiln.concat %p, %p dim = 0 : tensor<7x5xi1>, tensor<7x5xi1> -> tensor<14x5xi1>
  %4 = kiln.reshape %b : tensor<7x5xbf16> -> tensor<35xbf16>
  %5 = kiln.slice %0, offsets = [0, 3], sizes = [7, 2] : tensor<7x5xf16> -> tensor<7x2xf16>
  return %0, %1, %2, %3, %4, %5 : tensor<7x5xf16>, tensor<3x7x5xbf16>,
      tensor<5x7xi1>, tensor<14x5xi1>, tensor<35xbf16>, tensor<7x2xf16>
}

// The generic-form examples of docs/Dialect.md.
// GENERIC: reference: out0 tensor<4x8xf32> matches
// GENERIC: reference: out1 tensor<4x8xf32> matches
// GENERIC: reference: out2 tensor<4x11xf32> matches
// GENERIC: reference: out3 tensor<8x4xf32> matches
// GENERIC: reference: out4 tensor<32xf32> matches
// GENERIC-NOT: matches
func.func @layout_generic(%a: tensor<4x8xf32>, %bias: tensor<8xf32>,
                          %g: tensor<4x32xf32>, %y: tensor<4x3xf32>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x11xf32>, tensor<8x4xf32>,
        tensor<32xf32>) {
  %b = "kiln.broadcast_in_dim"(%bias) <{dims = array<i64: 1>}> : (tensor<8xf32>) -> tensor<4x8xf32>
  %s = "kiln.add"(%a, %b) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %i = "kiln.slice"(%g) <{offsets = array<i64: 0, 8>, sizes = array<i64: 4, 8>}> : (tensor<4x32xf32>) -> tensor<4x8xf32>
  %k = "kiln.concat"(%s, %y) <{dim = 1 : i64}> : (tensor<4x8xf32>, tensor<4x3xf32>) -> tensor<4x11xf32>
  %t = "kiln.transpose"(%a) <{perm = array<i64: 1, 0>}> : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %r = "kiln.reshape"(%a) : (tensor<4x8xf32>) -> tensor<32xf32>
  return %s, %i, %k, %t, %r : tensor<4x8xf32>, tensor<4x8xf32>,
      tensor<4x11xf32>, tensor<8x4xf32>, tensor<32xf32>
}

// Hand-computed values on m = [[1, 2, 3], [4, 5, 6]].
// KNOWN:      out0: tensor<3x2xf32>
// KNOWN-NEXT: {{\[\[}}1, 4],
// KNOWN-NEXT:  [2, 5],
// KNOWN-NEXT:  [3, 6]]
// KNOWN-NEXT: out1: tensor<2x2xf32>
// KNOWN-NEXT: {{\[\[}}2, 3],
// KNOWN-NEXT:  [5, 6]]
// KNOWN-NEXT: out2: tensor<2x5xf32>
// KNOWN-NEXT: {{\[\[}}1, 2, 3, 7, 8],
// KNOWN-NEXT:  [4, 5, 6, 9, 10]]
// KNOWN-NEXT: out3: tensor<3x3xf32>
// KNOWN-NEXT: {{\[\[}}1, 2, 3],
// KNOWN-NEXT:  [4, 5, 6],
// KNOWN-NEXT:  [7, 8, 9]]
// KNOWN-NEXT: out4: tensor<2x2x3xf32>
// KNOWN-NEXT: {{\[\[\[}}10, 20, 30],
// KNOWN-NEXT:   [10, 20, 30]],
// KNOWN-NEXT:  {{\[\[}}10, 20, 30],
// KNOWN-NEXT:   [10, 20, 30]]]
// KNOWN-NEXT: out5: tensor<2x3xf32>
// KNOWN-NEXT: {{\[\[}}10, 10, 10],
// KNOWN-NEXT:  [20, 20, 20]]
// KNOWN-NEXT: out6: tensor<3x2xf32>
// KNOWN-NEXT: {{\[\[}}1, 2],
// KNOWN-NEXT:  [3, 4],
// KNOWN-NEXT:  [5, 6]]
// KNOWN-NEXT: out7: tensor<f32>
// KNOWN-NEXT: 42
// KNOWN-NEXT: out8: tensor<2x3x1xf32>
// KNOWN-NEXT: {{\[\[\[}}1],
// KNOWN-NEXT:   [4],
// KNOWN-NEXT:   [2]],
// KNOWN-NEXT:  {{\[\[}}5],
// KNOWN-NEXT:   [3],
// KNOWN-NEXT:   [6]]]
// KNOWN-COUNT-9: matches
func.func @layout_known()
    -> (tensor<3x2xf32>, tensor<2x2xf32>, tensor<2x5xf32>, tensor<3x3xf32>,
        tensor<2x2x3xf32>, tensor<2x3xf32>, tensor<3x2xf32>, tensor<f32>,
        tensor<2x3x1xf32>) {
  %m = kiln.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %n = kiln.constant dense<[[7.0, 8.0], [9.0, 10.0]]> : tensor<2x2xf32>
  %r = kiln.constant dense<[[7.0, 8.0, 9.0]]> : tensor<1x3xf32>
  %v = kiln.constant dense<[10.0, 20.0, 30.0]> : tensor<3xf32>
  %c = kiln.constant dense<[[10.0], [20.0]]> : tensor<2x1xf32>
  %s = kiln.constant dense<[42.0]> : tensor<1xf32>
  %0 = kiln.transpose %m, perm = [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  %1 = kiln.slice %m, offsets = [0, 1], sizes = [2, 2] : tensor<2x3xf32> -> tensor<2x2xf32>
  %2 = kiln.concat %m, %n dim = 1 : tensor<2x3xf32>, tensor<2x2xf32> -> tensor<2x5xf32>
  %3 = kiln.concat %m, %r dim = 0 : tensor<2x3xf32>, tensor<1x3xf32> -> tensor<3x3xf32>
  %4 = kiln.broadcast_in_dim %v, dims = [2] : tensor<3xf32> -> tensor<2x2x3xf32>
  %5 = kiln.broadcast_in_dim %c, dims = [0, 1] : tensor<2x1xf32> -> tensor<2x3xf32>
  %6 = kiln.reshape %m : tensor<2x3xf32> -> tensor<3x2xf32>
  %7 = kiln.reshape %s : tensor<1xf32> -> tensor<f32>
  %m3 = kiln.reshape %m : tensor<2x3xf32> -> tensor<2x3x1xf32>
  %8 = kiln.transpose %m3, perm = [1, 0, 2] : tensor<2x3x1xf32> -> tensor<3x2x1xf32>
  %9 = kiln.reshape %8 : tensor<3x2x1xf32> -> tensor<2x3x1xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %9
      : tensor<3x2xf32>, tensor<2x2xf32>, tensor<2x5xf32>, tensor<3x3xf32>,
        tensor<2x2x3xf32>, tensor<2x3xf32>, tensor<3x2xf32>, tensor<f32>,
        tensor<2x3x1xf32>
}
