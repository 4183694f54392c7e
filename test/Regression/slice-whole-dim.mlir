// Found by kiln-fuzz-diff (program 72): a kiln.slice size of -1 takes its
// dim whole, as docs/Dialect.md says, and the verifier refused it ("slice dim 0
// has a negative offset or size"). It now parses, folds, lowers, runs on
// the CPU and the emulated GPU, and differentiates.

// RUN: kiln-run %s --random-inputs 72 --check-reference | FileCheck %s
// RUN: kiln-run %s --random-inputs 72 --check-reference --emulate-gpu | FileCheck %s
// RUN: kiln-opt %s -kiln-autodiff -canonicalize | FileCheck %s --check-prefix=IR
// CHECK-COUNT-3: matches

func.func @main(%x: tensor<3x1x2xf64>, %g: tensor<4x6xf32>) -> (tensor<3x1x2xf64>, tensor<4x2xf32>, tensor<4x6xf32>) {
  %0 = "kiln.slice"(%x) <{offsets = array<i64: 0, 0, 0>, sizes = array<i64: -1, -1, -1>}> : (tensor<3x1x2xf64>) -> tensor<3x1x2xf64>
  %1 = kiln.slice %g, offsets = [0, 3], sizes = [-1, 2] : tensor<4x6xf32> -> tensor<4x2xf32>
  %ct = kiln.constant dense<1.0> : tensor<4x2xf32>
  %d = kiln.vjp @part(%g, %ct) wrt [0] : (tensor<4x6xf32>, tensor<4x2xf32>) -> tensor<4x6xf32>
  return %0, %1, %d : tensor<3x1x2xf64>, tensor<4x2xf32>, tensor<4x6xf32>
}

func.func private @part(%g: tensor<4x6xf32>) -> tensor<4x2xf32> {
  // slice(slice): the outer -1 is the inner slice's whole dim, not %g's.
  %s = kiln.slice %g, offsets = [1, 2], sizes = [3, 4] : tensor<4x6xf32> -> tensor<3x4xf32>
  %t = kiln.slice %s, offsets = [0, 1], sizes = [-1, 2] : tensor<3x4xf32> -> tensor<3x2xf32>
  %c = kiln.constant dense<0.0> : tensor<1x2xf32>
  %r = kiln.concat %c, %t dim = 0 : tensor<1x2xf32>, tensor<3x2xf32> -> tensor<4x2xf32>
  return %r : tensor<4x2xf32>
}
// IR-LABEL: func.func @main
// IR: kiln.slice %{{.*}}, offsets = [0, 3], sizes = [-1, 2]
// IR-LABEL: func.func private @part
// IR: kiln.slice %{{.*}}, offsets = [1, 3], sizes = [3, 2]

