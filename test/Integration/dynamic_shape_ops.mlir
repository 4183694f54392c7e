// Layout ops whose dynamic dims change or combine: reshape of a dynamic dim,
// concat along the dynamic dim, and a broadcast into a dynamic dim. The
// reference interpreter runs all of them; the compiled code must agree.
//
// Regression tests: each of these once failed to compile (reshape of a
// dynamic dim, an affine.apply left by a dynamic concat, and a broadcast
// pair folded into one whose dynamic dim had no source).

// REQUIRES: numpy
// RUN: rm -rf %t && mkdir -p %t
// RUN: %host_python -c "import numpy as np; np.save('%t/x5.npy', np.arange(40, dtype=np.float32).reshape(5, 8))"
// RUN: %host_python -c "import numpy as np; np.save('%t/x1000.npy', np.random.default_rng(1).uniform(-1, 1, (1000, 8)).astype(np.float32))"
// RUN: %host_python -c "import numpy as np; np.save('%t/b.npy', np.arange(8, dtype=np.float32))"

// RUN: kiln-run %s --entry reshape_dynamic --input %t/x5.npy --print --check-reference | FileCheck %s --check-prefix=RESHAPE
// RUN: kiln-run %s --entry reshape_dynamic --input %t/x1000.npy --check-reference | FileCheck %s --check-prefix=RESHAPEREF
// RUN: kiln-run %s --entry concat_dynamic --input %t/x5.npy --print --check-reference | FileCheck %s --check-prefix=CONCAT
// RUN: kiln-run %s --entry concat_dynamic --input %t/x1000.npy --check-reference | FileCheck %s --check-prefix=CONCATREF
// RUN: kiln-run %s --entry broadcast_chain --input %t/x5.npy --input %t/b.npy --print --check-reference | FileCheck %s --check-prefix=BCAST

// x[i, j] = 8 i + j, i < 5. As ?x4 (10 rows of x.reshape(-1, 4)) the column
// sums are 180 + 10 j; as ? it sums to 780.
// RESHAPE:      out0: tensor<4xf32>
// RESHAPE-NEXT: [180, 190, 200, 210]
// RESHAPE-NEXT: out1: tensor<f32>
// RESHAPE-NEXT: 780
// RESHAPE-COUNT-2: matches
// RESHAPEREF-COUNT-2: matches
func.func @reshape_dynamic(%x: tensor<?x8xf32>) -> (tensor<4xf32>, tensor<f32>) {
  %r = kiln.reshape %x : tensor<?x8xf32> -> tensor<?x4xf32>
  %0 = kiln.reduce_sum %r, dims = [0] : tensor<?x4xf32> -> tensor<4xf32>
  %f = kiln.reshape %x : tensor<?x8xf32> -> tensor<?xf32>
  %1 = kiln.reduce_sum %f, dims = [0] : tensor<?xf32> -> tensor<f32>
  return %0, %1 : tensor<4xf32>, tensor<f32>
}

// concat(x, 2 x) along dim 0: column sums 3 (80 + 5 j), maxima 2 (32 + j).
// CONCAT:      out0: tensor<8xf32>
// CONCAT-NEXT: [240, 255, 270, 285, 300, 315, 330, 345]
// CONCAT-NEXT: out1: tensor<8xf32>
// CONCAT-NEXT: [64, 66, 68, 70, 72, 74, 76, 78]
// CONCAT-COUNT-2: matches
// CONCATREF-COUNT-2: matches
func.func @concat_dynamic(%x: tensor<?x8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %d = kiln.add %x, %x : tensor<?x8xf32>
  %c = kiln.concat %x, %d dim = 0 : tensor<?x8xf32>, tensor<?x8xf32> -> tensor<?x8xf32>
  %0 = kiln.reduce_sum %c, dims = [0] : tensor<?x8xf32> -> tensor<8xf32>
  %1 = kiln.reduce_max %c, dims = [0] : tensor<?x8xf32> -> tensor<8xf32>
  return %0, %1 : tensor<8xf32>, tensor<8xf32>
}

// b = [0, ..., 7] broadcast to 5x8, then (identity sizes) to ?x8, added to
// x: column sums 80 + 5 j + 5 j.
// BCAST:      out0: tensor<8xf32>
// BCAST-NEXT: [80, 90, 100, 110, 120, 130, 140, 150]
// BCAST-NEXT: reference: out0 tensor<8xf32> matches, max abs error 0
func.func @broadcast_chain(%x: tensor<?x8xf32>, %b: tensor<8xf32>) -> tensor<8xf32> {
  %bb = kiln.broadcast_in_dim %b, dims = [1] : tensor<8xf32> -> tensor<5x8xf32>
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x8xf32>
  %bd = kiln.broadcast_in_dim %bb sizes(%n), dims = [0, 1] : tensor<5x8xf32> -> tensor<?x8xf32>
  %z = kiln.add %x, %bd : tensor<?x8xf32>
  %t = kiln.reduce_sum %z, dims = [0] : tensor<?x8xf32> -> tensor<8xf32>
  return %t : tensor<8xf32>
}
