// Results with dynamic dims: their shapes follow from the inputs' (the
// entry's shape function), and sizes that must agree between dynamic dims
// are checked before the run, with a message naming the op: never a crash
// or a read past a buffer.

// REQUIRES: numpy
// RUN: rm -rf %t && mkdir -p %t
// RUN: %host_python -c "import numpy as np; r = np.random.default_rng(1); [np.save('%t/x%d.npy' % n, r.uniform(-1, 1, (n, 8)).astype(np.float32)) for n in (0, 1, 5, 300)]"
// RUN: %host_python -c "import numpy as np; r = np.random.default_rng(2); np.save('%t/w.npy', r.uniform(-1, 1, (8, 4)).astype(np.float32)); np.save('%t/w7.npy', r.uniform(-1, 1, (7, 4)).astype(np.float32)); np.save('%t/b.npy', r.uniform(-1, 1, (4,)).astype(np.float32))"

// RUN: kiln-run %s --entry layer --input %t/x5.npy --input %t/w.npy --input %t/b.npy --check-reference | FileCheck %s --check-prefix=LAYER5
// RUN: kiln-run %s --entry layer --input %t/x300.npy --input %t/w.npy --input %t/b.npy --check-reference | FileCheck %s --check-prefix=LAYER300
// RUN: kiln-run %s --entry layer --input %t/x1.npy --input %t/w.npy --input %t/b.npy --check-reference | FileCheck %s --check-prefix=LAYER1
// RUN: kiln-run %s --entry layer --input %t/x0.npy --input %t/w.npy --input %t/b.npy --print --check-reference | FileCheck %s --check-prefix=LAYER0
// LAYER5:        reference: out0 tensor<5x4xf32> matches
// LAYER5-NEXT:   reference: out1 tensor<4xf32> matches
// LAYER300:      reference: out0 tensor<300x4xf32> matches
// LAYER1:        reference: out0 tensor<1x4xf32> matches
// LAYER0:        out0: tensor<0x4xf32>
// LAYER0:        reference: out0 tensor<0x4xf32> matches
func.func @layer(%x: tensor<?x8xf32>, %w: tensor<8x4xf32>, %b: tensor<4xf32>)
    -> (tensor<?x4xf32>, tensor<4xf32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x8xf32>
  %m = kiln.matmul %x, %w : tensor<?x8xf32>, tensor<8x4xf32> -> tensor<?x4xf32>
  %bb = kiln.broadcast_in_dim %b sizes(%n), dims = [1] : tensor<4xf32> -> tensor<?x4xf32>
  %y = kiln.add %m, %bb : tensor<?x4xf32>
  %t = kiln.tanh %y : tensor<?x4xf32>
  %s = kiln.reduce_sum %t, dims = [0] : tensor<?x4xf32> -> tensor<4xf32>
  return %t, %s : tensor<?x4xf32>, tensor<4xf32>
}

// Shapes through views: a transpose, a reshape with one dynamic dim, a
// concat along the dynamic dim, a slice that keeps it.
// RUN: kiln-run %s --entry views --input %t/x5.npy --input %t/x1.npy --check-reference | FileCheck %s --check-prefix=VIEWS
// VIEWS:      reference: out0 tensor<8x5xf32> matches, max abs error 0
// VIEWS-NEXT: reference: out1 tensor<20x2xf32> matches, max abs error 0
// VIEWS-NEXT: reference: out2 tensor<6x8xf32> matches, max abs error 0
// VIEWS-NEXT: reference: out3 tensor<5x3xf32> matches, max abs error 0
func.func @views(%x: tensor<?x8xf32>, %y: tensor<?x8xf32>)
    -> (tensor<8x?xf32>, tensor<?x2xf32>, tensor<?x8xf32>, tensor<?x3xf32>) {
  %t = kiln.transpose %x, perm = [1, 0] : tensor<?x8xf32> -> tensor<8x?xf32>
  %r = kiln.reshape %x : tensor<?x8xf32> -> tensor<?x2xf32>
  %c = kiln.concat %x, %y dim = 0 : tensor<?x8xf32>, tensor<?x8xf32> -> tensor<?x8xf32>
  %s = kiln.slice %x, offsets = [0, 2], sizes = [-1, 3] : tensor<?x8xf32> -> tensor<?x3xf32>
  return %t, %r, %c, %s : tensor<8x?xf32>, tensor<?x2xf32>, tensor<?x8xf32>, tensor<?x3xf32>
}

// Sizes that disagree at run time: named by the op and the sizes.
// RUN: not kiln-run %s --entry mm --input %t/x5.npy --input %t/w7.npy 2>&1 | FileCheck %s --check-prefix=MM
// MM: kiln-run: error: @mm: {{.*}}dynamic_results.mlir:[[@LINE+4]]:8: kiln.matmul: contracted sizes differ: 8 and 7
// RUN: kiln-run %s --entry mm --input %t/x5.npy --input %t/w.npy --check-reference | FileCheck %s --check-prefix=MM-OK
// MM-OK: reference: out0 tensor<5x4xf32> matches
func.func @mm(%x: tensor<?x8xf32>, %w: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %m = kiln.matmul %x, %w : tensor<?x8xf32>, tensor<?x4xf32> -> tensor<?x4xf32>
  return %m : tensor<?x4xf32>
}

// RUN: not kiln-run %s --entry add --input %t/x5.npy --input %t/x300.npy 2>&1 | FileCheck %s --check-prefix=ADD
// ADD: kiln-run: error: @add: {{.*}}dynamic_results.mlir:[[@LINE+2]]:8: kiln.add: the sizes of operands #0 and #1 along dim 0 differ: 5 and 300
func.func @add(%x: tensor<?x8xf32>, %y: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %s = kiln.add %x, %y : tensor<?x8xf32>
  return %s : tensor<?x8xf32>
}

// A static slice past the end of a dynamic dim.
// RUN: not kiln-run %s --entry head --input %t/x1.npy 2>&1 | FileCheck %s --check-prefix=HEAD
// HEAD: kiln-run: error: @head: {{.*}}dynamic_results.mlir:[[@LINE+4]]:8: kiln.slice: the end of the slice along dim 0 and the operand's size: 2 > 1
// RUN: kiln-run %s --entry head --input %t/x5.npy --check-reference | FileCheck %s --check-prefix=HEAD-OK
// HEAD-OK: reference: out0 tensor<2x8xf32> matches, max abs error 0
func.func @head(%x: tensor<?x8xf32>) -> tensor<2x8xf32> {
  %s = kiln.slice %x, offsets = [0, 0], sizes = [2, 8] : tensor<?x8xf32> -> tensor<2x8xf32>
  return %s : tensor<2x8xf32>
}

// A reshape to two dynamic dims: nothing says how the elements split
// between them, so the result shapes cannot be inferred; refused by name
// rather than run with a guess.
// RUN: not kiln-run %s --entry reshape2 --input %t/x5.npy 2>&1 | FileCheck %s --check-prefix=RESHAPE2
// RESHAPE2: kiln-run: error: result 0 has dynamic shape tensor<?x?xf32>; results must have static shapes (cannot infer the result shapes from the input shapes: 'kiln.reshape' at {{.*}}dynamic_results.mlir":{{[0-9]+}}:8) (a reshape to more than one dynamic dim))
func.func @reshape2(%x: tensor<?x8xf32>) -> tensor<?x?xf32> {
  %r = kiln.reshape %x : tensor<?x8xf32> -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
