// Hand-written kiln.fusion_group regions (what -kiln-fuse produces), each
// compiled as one kernel for the CPU and compared with the reference
// interpreter, which evaluates the region body.

// RUN: kiln-run %s --entry group_2in_2out --random-inputs 71 --check-reference | FileCheck %s --check-prefix=TWO
// RUN: kiln-run %s --entry group_small --random-inputs 72 --check-reference | FileCheck %s --check-prefix=SMALL
// RUN: kiln-run %s --entry group_chain --random-inputs 73 --check-reference | FileCheck %s --check-prefix=CHAIN
// RUN: kiln-run %s --entry group_slice_concat --random-inputs 74 --check-reference | FileCheck %s --check-prefix=SLICE
// RUN: kiln-run %s --entry group_sliced_sum --random-inputs 78 --check-reference | FileCheck %s --check-prefix=SUM
// RUN: kiln-run %s --entry group_reduce --random-inputs 75 --check-reference | FileCheck %s --check-prefix=REDUCE
// RUN: kiln-run %s --entry group_bias_grad --random-inputs 79 --repeat 3 --check-reference --report | FileCheck %s --check-prefix=EPILOGUE
// RUN: kiln-run %s --entry group_epilogue_rank3 --random-inputs 80 --check-reference --report | FileCheck %s --check-prefix=RANK3
// RUN: kiln-run %s --entry group_reduce --random-inputs 75 --repeat 3 --check-reference | FileCheck %s --check-prefix=REDUCE
// RUN: kiln-run %s --entry group_f64 --random-inputs 76 --check-reference | FileCheck %s --check-prefix=F64
// RUN: kiln-run %s --entry group_generic --random-inputs 77 --check-reference | FileCheck %s --check-prefix=GENERIC
// RUN: kiln-run %s --entry group_known --print --check-reference | FileCheck %s --check-prefix=KNOWN

// Two inputs, two outputs: s = x * y + x, t = sigmoid(s) - y.
// TWO: reference: out0 tensor<64x1000xf32> matches
// TWO: reference: out1 tensor<64x1000xf32> matches
// TWO-NOT: matches
func.func @group_2in_2out(%x: tensor<64x1000xf32>, %y: tensor<64x1000xf32>)
    -> (tensor<64x1000xf32>, tensor<64x1000xf32>) {
  %s, %t = kiln.fusion_group %x, %y : (tensor<64x1000xf32>, tensor<64x1000xf32>) -> (tensor<64x1000xf32>, tensor<64x1000xf32>) {
  ^bb0(%a: tensor<64x1000xf32>, %b: tensor<64x1000xf32>):
    %m = kiln.mul %a, %b : tensor<64x1000xf32>
    %0 = kiln.add %m, %a : tensor<64x1000xf32>
    %g = kiln.sigmoid %0 : tensor<64x1000xf32>
    %1 = kiln.sub %g, %b : tensor<64x1000xf32>
    kiln.yield %0, %1 : tensor<64x1000xf32>, tensor<64x1000xf32>
  }
  return %s, %t : tensor<64x1000xf32>, tensor<64x1000xf32>
}

// The same shape of group on a small odd shape, with a constant and a
// select inside.
// SMALL: reference: out0 tensor<3x7xf32> matches
// SMALL: reference: out1 tensor<3x7xi1> matches
// SMALL-NOT: matches
func.func @group_small(%x: tensor<3x7xf32>, %y: tensor<3x7xf32>)
    -> (tensor<3x7xf32>, tensor<3x7xi1>) {
  %r, %p = kiln.fusion_group %x, %y : (tensor<3x7xf32>, tensor<3x7xf32>) -> (tensor<3x7xf32>, tensor<3x7xi1>) {
  ^bb0(%a: tensor<3x7xf32>, %b: tensor<3x7xf32>):
    %half = kiln.constant dense<0.5> : tensor<3x7xf32>
    %c = kiln.cmp gt, %a, %b : tensor<3x7xf32>
    %e = kiln.exp %a : tensor<3x7xf32>
    %m = kiln.mul %b, %half : tensor<3x7xf32>
    %0 = kiln.select %c, %e, %m : tensor<3x7xi1>, tensor<3x7xf32>
    kiln.yield %0, %c : tensor<3x7xf32>, tensor<3x7xi1>
  }
  return %r, %p : tensor<3x7xf32>, tensor<3x7xi1>
}

// Two groups in sequence with ops between and after them; the second group
// consumes an output of the first and a function argument.
// CHAIN: reference: out0 tensor<128x300xf32> matches
// CHAIN: reference: out1 tensor<128x300xf32> matches
// CHAIN-NOT: matches
func.func @group_chain(%x: tensor<128x300xf32>, %y: tensor<128x300xf32>,
                       %z: tensor<128x300xf32>)
    -> (tensor<128x300xf32>, tensor<128x300xf32>) {
  %u, %v = kiln.fusion_group %x, %y : (tensor<128x300xf32>, tensor<128x300xf32>) -> (tensor<128x300xf32>, tensor<128x300xf32>) {
  ^bb0(%a: tensor<128x300xf32>, %b: tensor<128x300xf32>):
    %0 = kiln.tanh %a : tensor<128x300xf32>
    %1 = kiln.mul %0, %b : tensor<128x300xf32>
    kiln.yield %0, %1 : tensor<128x300xf32>, tensor<128x300xf32>
  }
  %w = kiln.neg %u : tensor<128x300xf32>
  %r = kiln.fusion_group %v, %z, %w : (tensor<128x300xf32>, tensor<128x300xf32>, tensor<128x300xf32>) -> tensor<128x300xf32> {
  ^bb0(%a: tensor<128x300xf32>, %b: tensor<128x300xf32>, %c: tensor<128x300xf32>):
    %0 = kiln.max %a, %b : tensor<128x300xf32>
    %1 = kiln.add %0, %c : tensor<128x300xf32>
    kiln.yield %1 : tensor<128x300xf32>
  }
  %out = kiln.add %r, %u : tensor<128x300xf32>
  return %out, %v : tensor<128x300xf32>, tensor<128x300xf32>
}

// An LSTM-style group: slice entries (the four gate chunks), broadcast of a
// bias, and a concat exit.
// SLICE: reference: out0 tensor<64x512xf32> matches
// SLICE: reference: out1 tensor<64x256xf32> matches
// SLICE-NOT: matches
func.func @group_slice_concat(%g: tensor<64x1024xf32>, %c: tensor<64x256xf32>,
                              %bias: tensor<1024xf32>)
    -> (tensor<64x512xf32>, tensor<64x256xf32>) {
  %hc, %h = kiln.fusion_group %g, %c, %bias : (tensor<64x1024xf32>, tensor<64x256xf32>, tensor<1024xf32>) -> (tensor<64x512xf32>, tensor<64x256xf32>) {
  ^bb0(%gates: tensor<64x1024xf32>, %cell: tensor<64x256xf32>, %b: tensor<1024xf32>):
    %bb = kiln.broadcast_in_dim %b, dims = [1] : tensor<1024xf32> -> tensor<64x1024xf32>
    %gb = kiln.add %gates, %bb : tensor<64x1024xf32>
    %i = kiln.slice %gb, offsets = [0, 0], sizes = [64, 256] : tensor<64x1024xf32> -> tensor<64x256xf32>
    %f = kiln.slice %gb, offsets = [0, 256], sizes = [64, 256] : tensor<64x1024xf32> -> tensor<64x256xf32>
    %gg = kiln.slice %gb, offsets = [0, 512], sizes = [64, 256] : tensor<64x1024xf32> -> tensor<64x256xf32>
    %o = kiln.slice %gb, offsets = [0, 768], sizes = [64, 256] : tensor<64x1024xf32> -> tensor<64x256xf32>
    %si = kiln.sigmoid %i : tensor<64x256xf32>
    %sf = kiln.sigmoid %f : tensor<64x256xf32>
    %tg = kiln.tanh %gg : tensor<64x256xf32>
    %so = kiln.sigmoid %o : tensor<64x256xf32>
    %fc = kiln.mul %sf, %cell : tensor<64x256xf32>
    %ig = kiln.mul %si, %tg : tensor<64x256xf32>
    %c2 = kiln.add %fc, %ig : tensor<64x256xf32>
    %tc = kiln.tanh %c2 : tensor<64x256xf32>
    %h2 = kiln.mul %so, %tc : tensor<64x256xf32>
    %cat = kiln.concat %h2, %c2 dim = 1 : tensor<64x256xf32>, tensor<64x256xf32> -> tensor<64x512xf32>
    kiln.yield %cat, %h2 : tensor<64x512xf32>, tensor<64x256xf32>
  }
  return %hc, %h : tensor<64x512xf32>, tensor<64x256xf32>
}

// A reduction with an elementwise prologue and epilogue inside one group,
// and an output of the prologue as well.
// REDUCE: reference: out0 tensor<64xf32> matches
// REDUCE: reference: out1 tensor<64x1000xf32> matches
// REDUCE-NOT: matches
func.func @group_reduce(%x: tensor<64x1000xf32>, %y: tensor<64x1000xf32>)
    -> (tensor<64xf32>, tensor<64x1000xf32>) {
  %n, %d = kiln.fusion_group %x, %y : (tensor<64x1000xf32>, tensor<64x1000xf32>) -> (tensor<64xf32>, tensor<64x1000xf32>) {
  ^bb0(%a: tensor<64x1000xf32>, %b: tensor<64x1000xf32>):
    %0 = kiln.sub %a, %b : tensor<64x1000xf32>
    %1 = kiln.mul %0, %0 : tensor<64x1000xf32>
    %2 = kiln.reduce_sum %1, dims = [1] : tensor<64x1000xf32> -> tensor<64xf32>
    %3 = kiln.sqrt %2 : tensor<64xf32>
    kiln.yield %3, %0 : tensor<64xf32>, tensor<64x1000xf32>
  }
  return %n, %d : tensor<64xf32>, tensor<64x1000xf32>
}

// F64: reference: out0 tensor<20x30xf64> matches
// F64: reference: out1 tensor<30xf64> matches
// F64-NOT: matches
func.func @group_f64(%x: tensor<20x30xf64>, %y: tensor<20x30xf64>)
    -> (tensor<20x30xf64>, tensor<30xf64>) {
  %p, %q = kiln.fusion_group %x, %y : (tensor<20x30xf64>, tensor<20x30xf64>) -> (tensor<20x30xf64>, tensor<30xf64>) {
  ^bb0(%a: tensor<20x30xf64>, %b: tensor<20x30xf64>):
    %0 = kiln.mul %a, %b : tensor<20x30xf64>
    %1 = kiln.cos %0 : tensor<20x30xf64>
    %2 = kiln.reduce_max %1, dims = [0] : tensor<20x30xf64> -> tensor<30xf64>
    kiln.yield %1, %2 : tensor<20x30xf64>, tensor<30xf64>
  }
  return %p, %q : tensor<20x30xf64>, tensor<30xf64>
}

// The generic form of a two-input, two-output group.
// GENERIC: reference: out0 tensor<4x8xf32> matches
// GENERIC: reference: out1 tensor<4x8xf32> matches
// GENERIC-NOT: matches
func.func @group_generic(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %r:2 = "kiln.fusion_group"(%x, %y) ({
  ^bb0(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>):
    %0 = "kiln.add"(%a, %b) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %1 = "kiln.mul"(%0, %b) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    "kiln.yield"(%0, %1) : (tensor<4x8xf32>, tensor<4x8xf32>) -> ()
  }) : (tensor<4x8xf32>, tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>)
  return %r#0, %r#1 : tensor<4x8xf32>, tensor<4x8xf32>
}

// Hand-computed values: x = [1, 2, -3], y = [4, -5, 6]; the group returns
// x + y = [5, -3, 3] and relu(x * y) = [4, 0, 0].
// KNOWN:      out0: tensor<3xf32>
// KNOWN-NEXT: [5, -3, 3]
// KNOWN-NEXT: out1: tensor<3xf32>
// KNOWN-NEXT: [4, 0, 0]
// KNOWN-COUNT-2: matches
func.func @group_known() -> (tensor<3xf32>, tensor<3xf32>) {
  %x = kiln.constant dense<[1.0, 2.0, -3.0]> : tensor<3xf32>
  %y = kiln.constant dense<[4.0, -5.0, 6.0]> : tensor<3xf32>
  %s, %r = kiln.fusion_group %x, %y : (tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  ^bb0(%a: tensor<3xf32>, %b: tensor<3xf32>):
    %0 = kiln.add %a, %b : tensor<3xf32>
    %m = kiln.mul %a, %b : tensor<3xf32>
    %1 = kiln.relu %m : tensor<3xf32>
    kiln.yield %0, %1 : tensor<3xf32>, tensor<3xf32>
  }
  return %s, %r : tensor<3xf32>, tensor<3xf32>
}

// LSTM gates as the sum of two matmul results and a bias, chunked: the adds
// are evaluated at each chunk's indices inside the one kernel.
// SUM: reference: out0 tensor<48x200xf32> matches
// SUM: reference: out1 tensor<48x200xf32> matches
// SUM-NOT: matches
func.func @group_sliced_sum(%xw: tensor<48x800xf32>, %hw: tensor<48x800xf32>,
                            %bias: tensor<48x800xf32>, %c: tensor<48x200xf32>)
    -> (tensor<48x200xf32>, tensor<48x200xf32>) {
  %h, %c2 = kiln.fusion_group %xw, %hw, %bias, %c : (tensor<48x800xf32>, tensor<48x800xf32>, tensor<48x800xf32>, tensor<48x200xf32>) -> (tensor<48x200xf32>, tensor<48x200xf32>) {
  ^bb0(%a: tensor<48x800xf32>, %b: tensor<48x800xf32>, %d: tensor<48x800xf32>, %cell: tensor<48x200xf32>):
    %s = kiln.add %a, %b : tensor<48x800xf32>
    %g = kiln.add %s, %d : tensor<48x800xf32>
    %i = kiln.slice %g, offsets = [0, 0], sizes = [48, 200] : tensor<48x800xf32> -> tensor<48x200xf32>
    %f = kiln.slice %g, offsets = [0, 200], sizes = [48, 200] : tensor<48x800xf32> -> tensor<48x200xf32>
    %gg = kiln.slice %g, offsets = [0, 400], sizes = [48, 200] : tensor<48x800xf32> -> tensor<48x200xf32>
    %o = kiln.slice %g, offsets = [0, 600], sizes = [48, 200] : tensor<48x800xf32> -> tensor<48x200xf32>
    %si = kiln.sigmoid %i : tensor<48x200xf32>
    %sf = kiln.sigmoid %f : tensor<48x200xf32>
    %tg = kiln.tanh %gg : tensor<48x200xf32>
    %so = kiln.sigmoid %o : tensor<48x200xf32>
    %fc = kiln.mul %sf, %cell : tensor<48x200xf32>
    %ig = kiln.mul %si, %tg : tensor<48x200xf32>
    %cn = kiln.add %fc, %ig : tensor<48x200xf32>
    %tc = kiln.tanh %cn : tensor<48x200xf32>
    %hn = kiln.mul %so, %tc : tensor<48x200xf32>
    kiln.yield %hn, %cn : tensor<48x200xf32>, tensor<48x200xf32>
  }
  return %h, %c2 : tensor<48x200xf32>, tensor<48x200xf32>
}

// Reduction epilogues over the leading dims (bias gradients): one kernel
// fills the two accumulators with their identities, then computes the
// elementwise output, a sum and a max over the rows.
// EPILOGUE: reference: out0 tensor<256xf32> matches
// EPILOGUE: reference: out1 tensor<256xf32> matches
// EPILOGUE: reference: out2 tensor<48x256xf32> matches
// EPILOGUE: "fusion_groups": 1, "unique_kernels": 1, "kernel_launches": 1
func.func @group_bias_grad(%a: tensor<48x256xf32>, %b: tensor<48x256xf32>)
    -> (tensor<256xf32>, tensor<256xf32>, tensor<48x256xf32>) {
  %s, %m, %p = kiln.fusion_group %a, %b : (tensor<48x256xf32>, tensor<48x256xf32>) -> (tensor<256xf32>, tensor<256xf32>, tensor<48x256xf32>) {
  ^bb0(%x: tensor<48x256xf32>, %y: tensor<48x256xf32>):
    %0 = kiln.add %x, %y : tensor<48x256xf32>
    %1 = kiln.tanh %0 : tensor<48x256xf32>
    %2 = kiln.reduce_sum %0, dims = [0] : tensor<48x256xf32> -> tensor<256xf32>
    %3 = kiln.reduce_max %1, dims = [0] : tensor<48x256xf32> -> tensor<256xf32>
    kiln.yield %2, %3, %1 : tensor<256xf32>, tensor<256xf32>, tensor<48x256xf32>
  }
  return %s, %m, %p : tensor<256xf32>, tensor<256xf32>, tensor<48x256xf32>
}

// Over the two leading dims of a rank-3 domain, in f64; the fill of the
// accumulator is in the same kernel.
// RANK3: reference: out0 tensor<7xf64> matches
// RANK3: "unique_kernels": 1, "kernel_launches": 1
func.func @group_epilogue_rank3(%a: tensor<5x6x7xf64>, %b: tensor<5x6x7xf64>) -> tensor<7xf64> {
  %r = kiln.fusion_group %a, %b : (tensor<5x6x7xf64>, tensor<5x6x7xf64>) -> tensor<7xf64> {
  ^bb0(%x: tensor<5x6x7xf64>, %y: tensor<5x6x7xf64>):
    %0 = kiln.mul %x, %y : tensor<5x6x7xf64>
    %1 = kiln.reduce_sum %0, dims = [0, 1] : tensor<5x6x7xf64> -> tensor<7xf64>
    kiln.yield %1 : tensor<7xf64>
  }
  return %r : tensor<7xf64>
}
