// A function with a dynamic batch dim (tensor<?x8xf32>) fed by .npy inputs of
// several row counts (5 with hand-computed results, 1000 random, 1, and 0):
// one compiled function serves every size. Results have static shapes.

// REQUIRES: numpy
// RUN: rm -rf %t && mkdir -p %t
// RUN: %host_python -c "import numpy as np; np.save('%t/x5.npy', np.arange(40, dtype=np.float32).reshape(5, 8))"
// RUN: %host_python -c "import numpy as np; np.save('%t/x1000.npy', np.random.default_rng(0).uniform(-1, 1, (1000, 8)).astype(np.float32))"
// RUN: %host_python -c "import numpy as np; np.save('%t/x1.npy', np.full((1, 8), -0.5, dtype=np.float32))"
// RUN: %host_python -c "import numpy as np; np.save('%t/x0.npy', np.zeros((0, 8), dtype=np.float32))"
// RUN: %host_python -c "import numpy as np; np.save('%t/w.npy', (np.arange(32, dtype=np.float32).reshape(8, 4) - 16) / 8)"
// RUN: %host_python -c "import numpy as np; np.save('%t/bad.npy', np.zeros((5, 7), dtype=np.float32))"

// RUN: kiln-run %s --entry dyn_stats --input %t/x5.npy --print --check-reference | FileCheck %s --check-prefix=X5
// RUN: kiln-run %s --entry dyn_stats --input %t/x1000.npy --check-reference --atol 1e-3 | FileCheck %s --check-prefix=REF
// RUN: kiln-run %s --entry dyn_stats --input %t/x1.npy --print --check-reference | FileCheck %s --check-prefix=X1
// RUN: kiln-run %s --entry dyn_empty --input %t/x0.npy --print --check-reference | FileCheck %s --check-prefix=X0
// RUN: kiln-run %s --entry dyn_empty --input %t/x1000.npy --check-reference --atol 1e-3 | FileCheck %s --check-prefix=EREF
// RUN: kiln-run %s --entry dyn_layer --input %t/x1000.npy --input %t/w.npy --check-reference --atol 1e-3 | FileCheck %s --check-prefix=LAYER
// RUN: kiln-run %s --entry dyn_layer --input %t/x5.npy --input %t/w.npy --check-reference | FileCheck %s --check-prefix=LAYER
// RUN: kiln-run %s --entry dyn_views --input %t/x1000.npy --check-reference | FileCheck %s --check-prefix=VIEWS
// RUN: kiln-run %s --entry dyn_views --input %t/x5.npy --print --check-reference | FileCheck %s --check-prefix=VIEWS5
// RUN: %host_python -c "import numpy as np; np.save('%t/b4.npy', np.array([0.5, -1, 2, 0.25], dtype=np.float32))"
// RUN: kiln-run %s --entry dyn_bias --input %t/x5.npy --input %t/w.npy --input %t/b4.npy --print --check-reference | FileCheck %s --check-prefix=BIAS5
// RUN: kiln-run %s --entry dyn_bias --input %t/x1000.npy --input %t/w.npy --input %t/b4.npy --check-reference --atol 1e-3 | FileCheck %s --check-prefix=BIAS
// RUN: kiln-run %s --entry dyn_bias --input %t/x1.npy --input %t/w.npy --input %t/b4.npy --check-reference | FileCheck %s --check-prefix=BIAS
// RUN: kiln-run %s --entry dyn_bias --input %t/x0.npy --input %t/w.npy --input %t/b4.npy --print --check-reference | FileCheck %s --check-prefix=BIAS0
// A static dim that does not match is an input error, not a crash.
// RUN: not kiln-run %s --entry dyn_stats --input %t/bad.npy 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not kiln-run %s --entry dyn_stats --random-inputs 1 2>&1 | FileCheck %s --check-prefix=RANDOM

// x[i, j] = 8 i + j, i < 5:
//   column sums 80 + 5 j, column maxima 32 + j, total 780, column means
//   16 + j, row count 5, gram (x^T x)[a, b] = 1920 + 80 (a + b) + 5 a b.
// X5:      out0: tensor<8xf32>
// X5-NEXT: [80, 85, 90, 95, 100, 105, 110, 115]
// X5-NEXT: out1: tensor<8xf32>
// X5-NEXT: [32, 33, 34, 35, 36, 37, 38, 39]
// X5-NEXT: out2: tensor<f32>
// X5-NEXT: 780
// X5-NEXT: out3: tensor<8xf32>
// X5-NEXT: [16, 17, 18, 19, 20, 21, 22, 23]
// X5-NEXT: out4: tensor<8x8xf32>
// X5-NEXT: {{\[\[}}1920, 2000, 2080, 2160, 2240, 2320, 2400, 2480],
// X5-NEXT:  [2000, 2085, 2170, 2255, 2340, 2425, 2510, 2595],
// X5-NEXT:  [2080, 2170, 2260, 2350, 2440, 2530, 2620, 2710],
// X5-NEXT:  [2160, 2255, 2350, 2445, 2540, 2635, 2730, 2825],
// X5-NEXT:  [2240, 2340, 2440, 2540, 2640, 2740, 2840, 2940],
// X5-NEXT:  [2320, 2425, 2530, 2635, 2740, 2845, 2950, 3055],
// X5-NEXT:  [2400, 2510, 2620, 2730, 2840, 2950, 3060, 3170],
// X5-NEXT:  [2480, 2595, 2710, 2825, 2940, 3055, 3170, 3285]]
// X5-NEXT: out5: tensor<8xf32>
// X5-NEXT: [5, 5, 5, 5, 5, 5, 5, 5]
// X5-NEXT: out6: tensor<8xf32>
// X5-NEXT: [1, 1, 1, 1, 1, 1, 1, 1]
// X5-COUNT-7: matches

// REF:      reference: out0 tensor<8xf32> matches
// REF-NEXT: reference: out1 tensor<8xf32> matches
// REF-NEXT: reference: out2 tensor<f32> matches
// REF-NEXT: reference: out3 tensor<8xf32> matches
// REF-NEXT: reference: out4 tensor<8x8xf32> matches
// REF-NEXT: reference: out5 tensor<8xf32> matches, max abs error 0
// REF-NEXT: reference: out6 tensor<8xf32> matches

// X1:      out0: tensor<8xf32>
// X1-NEXT: [-0.5, -0.5, -0.5, -0.5, -0.5, -0.5, -0.5, -0.5]
// X1-NEXT: out1: tensor<8xf32>
// X1-NEXT: [-0.5, -0.5, -0.5, -0.5, -0.5, -0.5, -0.5, -0.5]
// X1-NEXT: out2: tensor<f32>
// X1-NEXT: -4
// X1-NEXT: out3: tensor<8xf32>
// X1-NEXT: [-0.5, -0.5, -0.5, -0.5, -0.5, -0.5, -0.5, -0.5]
// X1:      out5: tensor<8xf32>
// X1-NEXT: [1, 1, 1, 1, 1, 1, 1, 1]
// X1-COUNT-7: matches
func.func @dyn_stats(%x: tensor<?x8xf32>)
    -> (tensor<8xf32>, tensor<8xf32>, tensor<f32>, tensor<8xf32>,
        tensor<8x8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %0 = kiln.reduce_sum %x, dims = [0] : tensor<?x8xf32> -> tensor<8xf32>
  %1 = kiln.reduce_max %x, dims = [0] : tensor<?x8xf32> -> tensor<8xf32>
  %2 = kiln.reduce_sum %x, dims = [0, 1] : tensor<?x8xf32> -> tensor<f32>
  // The row count, as the sum of a mask that is all ones.
  %eq = kiln.cmp eq, %x, %x : tensor<?x8xf32>
  %ones = kiln.convert %eq : tensor<?x8xi1> -> tensor<?x8xf32>
  %5 = kiln.reduce_sum %ones, dims = [0] : tensor<?x8xf32> -> tensor<8xf32>
  %3 = kiln.div %0, %5 : tensor<8xf32>
  %4 = kiln.matmul %x, %x {transpose_a = true} : tensor<?x8xf32>, tensor<?x8xf32> -> tensor<8x8xf32>
  // sigmoid(x) + sigmoid(-x) = 1, summed and divided by the count.
  %n = kiln.neg %x : tensor<?x8xf32>
  %sp = kiln.sigmoid %x : tensor<?x8xf32>
  %sn = kiln.sigmoid %n : tensor<?x8xf32>
  %s = kiln.add %sp, %sn : tensor<?x8xf32>
  %ss = kiln.reduce_sum %s, dims = [0] : tensor<?x8xf32> -> tensor<8xf32>
  %6 = kiln.div %ss, %5 : tensor<8xf32>
  return %0, %1, %2, %3, %4, %5, %6
      : tensor<8xf32>, tensor<8xf32>, tensor<f32>, tensor<8xf32>,
        tensor<8x8xf32>, tensor<8xf32>, tensor<8xf32>
}

// Zero rows: the sum of nothing is 0, the maximum of nothing is -inf.
// X0:      out0: tensor<8xf32>
// X0-NEXT: [0, 0, 0, 0, 0, 0, 0, 0]
// X0-NEXT: out1: tensor<8xf32>
// X0-NEXT: [-inf, -inf, -inf, -inf, -inf, -inf, -inf, -inf]
// X0-NEXT: out2: tensor<8x8xf32>
// X0-NEXT: {{\[\[}}0, 0, 0, 0, 0, 0, 0, 0],
// X0-COUNT-3: matches
// EREF-COUNT-3: matches
func.func @dyn_empty(%x: tensor<?x8xf32>)
    -> (tensor<8xf32>, tensor<8xf32>, tensor<8x8xf32>) {
  %e = kiln.exp %x : tensor<?x8xf32>
  %0 = kiln.reduce_sum %e, dims = [0] : tensor<?x8xf32> -> tensor<8xf32>
  %1 = kiln.reduce_max %x, dims = [0] : tensor<?x8xf32> -> tensor<8xf32>
  %2 = kiln.matmul %x, %e {transpose_a = true} : tensor<?x8xf32>, tensor<?x8xf32> -> tensor<8x8xf32>
  return %0, %1, %2 : tensor<8xf32>, tensor<8xf32>, tensor<8x8xf32>
}

// A layer on a dynamic batch: the loss sum(relu(x w)^2) and the column sums
// of tanh(x w), with a dynamic intermediate of shape ?x4.
// LAYER: reference: out0 tensor<f32> matches
// LAYER: reference: out1 tensor<4xf32> matches
// LAYER-NOT: matches
func.func @dyn_layer(%x: tensor<?x8xf32>, %w: tensor<8x4xf32>)
    -> (tensor<f32>, tensor<4xf32>) {
  %m = kiln.matmul %x, %w : tensor<?x8xf32>, tensor<8x4xf32> -> tensor<?x4xf32>
  %r = kiln.relu %m : tensor<?x4xf32>
  %q = kiln.mul %r, %r : tensor<?x4xf32>
  %0 = kiln.reduce_sum %q, dims = [0, 1] : tensor<?x4xf32> -> tensor<f32>
  %t = kiln.tanh %m : tensor<?x4xf32>
  %1 = kiln.reduce_sum %t, dims = [0] : tensor<?x4xf32> -> tensor<4xf32>
  return %0, %1 : tensor<f32>, tensor<4xf32>
}

// Views and slices of the dynamic tensor: a static head slice, a transpose
// reduced over its dynamic dim, a broadcast along a new static dim, a
// concat along the static dim and the identity broadcast.
// VIEWS: reference: out0 tensor<2x8xf32> matches, max abs error 0
// VIEWS: reference: out1 tensor<8xf32> matches, max abs error 0
// VIEWS: reference: out2 tensor<3x8xf32> matches
// VIEWS: reference: out3 tensor<16xf32> matches
// VIEWS-NOT: matches
// VIEWS5:      out0: tensor<2x8xf32>
// VIEWS5-NEXT: {{\[\[}}0, 1, 2, 3, 4, 5, 6, 7],
// VIEWS5-NEXT:  [8, 9, 10, 11, 12, 13, 14, 15]]
// VIEWS5-NEXT: out1: tensor<8xf32>
// VIEWS5-NEXT: [32, 33, 34, 35, 36, 37, 38, 39]
// VIEWS5-NEXT: out2: tensor<3x8xf32>
// VIEWS5-NEXT: {{\[\[}}80, 85, 90, 95, 100, 105, 110, 115],
// VIEWS5-NEXT:  [80, 85, 90, 95, 100, 105, 110, 115],
// VIEWS5-NEXT:  [80, 85, 90, 95, 100, 105, 110, 115]]
// VIEWS5-NEXT: out3: tensor<16xf32>
// VIEWS5-NEXT: [80, 85, 90, 95, 100, 105, 110, 115, 160, 170, 180, 190, 200, 210, 220, 230]
// VIEWS5-COUNT-4: matches
func.func @dyn_views(%x: tensor<?x8xf32>)
    -> (tensor<2x8xf32>, tensor<8xf32>, tensor<3x8xf32>, tensor<16xf32>) {
  %0 = kiln.slice %x, offsets = [0, 0], sizes = [2, 8] : tensor<?x8xf32> -> tensor<2x8xf32>
  %t = kiln.transpose %x, perm = [1, 0] : tensor<?x8xf32> -> tensor<8x?xf32>
  %1 = kiln.reduce_max %t, dims = [1] : tensor<8x?xf32> -> tensor<8xf32>
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x8xf32>
  %b = kiln.broadcast_in_dim %x sizes(%n), dims = [0, 2] : tensor<?x8xf32> -> tensor<?x3x8xf32>
  %2 = kiln.reduce_sum %b, dims = [0] : tensor<?x3x8xf32> -> tensor<3x8xf32>
  %id = kiln.broadcast_in_dim %x sizes(%n), dims = [0, 1] : tensor<?x8xf32> -> tensor<?x8xf32>
  %d = kiln.add %x, %id : tensor<?x8xf32>
  %c = kiln.concat %x, %d dim = 1 : tensor<?x8xf32>, tensor<?x8xf32> -> tensor<?x16xf32>
  %3 = kiln.reduce_sum %c, dims = [0] : tensor<?x16xf32> -> tensor<16xf32>
  return %0, %1, %2, %3 : tensor<2x8xf32>, tensor<8xf32>, tensor<3x8xf32>,
      tensor<16xf32>
}

// BAD: kiln-run: error: input 0 ('{{.*}}bad.npy') is tensor<5x7xf32> but tensor<?x8xf32> is expected
// RANDOM: kiln-run: error: argument 0 has a dynamic shape: give --input files instead of --random-inputs

// A bias broadcast to the dynamic batch: the broadcast takes the batch size
// as its `sizes` operand (tensor.dim). The column sums of x w + b and the
// row count (a broadcast of ones, summed).
// x5 w: row i of x is 8i + j, so (x w)[i, k] = sum_j (8i + j) w[j, k]; the
// rows sum to 5 b + sum_i (x w)[i, :], checked against the reference.
// BIAS5:      out0: tensor<4xf32>
// BIAS5:      out1: tensor<f32>
// BIAS5-NEXT: 5
// BIAS5:      reference: out0 tensor<4xf32> matches
// BIAS5-NEXT: reference: out1 tensor<f32> matches
// BIAS:       reference: out0 tensor<4xf32> matches
// BIAS-NEXT:  reference: out1 tensor<f32> matches
// BIAS0:      out0: tensor<4xf32>
// BIAS0-NEXT: [0, 0, 0, 0]
// BIAS0-NEXT: out1: tensor<f32>
// BIAS0-NEXT: 0
func.func @dyn_bias(%x: tensor<?x8xf32>, %w: tensor<8x4xf32>, %b: tensor<4xf32>)
    -> (tensor<4xf32>, tensor<f32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x8xf32>
  %m = kiln.matmul %x, %w : tensor<?x8xf32>, tensor<8x4xf32> -> tensor<?x4xf32>
  %bb = kiln.broadcast_in_dim %b sizes(%n), dims = [1] : tensor<4xf32> -> tensor<?x4xf32>
  %y = kiln.add %m, %bb : tensor<?x4xf32>
  %s = kiln.reduce_sum %y, dims = [0] : tensor<?x4xf32> -> tensor<4xf32>
  %one = kiln.constant dense<1.0> : tensor<f32>
  %ones = kiln.broadcast_in_dim %one sizes(%n), dims = [] : tensor<f32> -> tensor<?xf32>
  %count = kiln.reduce_sum %ones, dims = [0] : tensor<?xf32> -> tensor<f32>
  return %s, %count : tensor<4xf32>, tensor<f32>
}
