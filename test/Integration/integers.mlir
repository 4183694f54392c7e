// i32 and i64 tensors (issue 38) through the CPU pipeline, against the
// reference interpreter and against values numpy computes: wrapping
// arithmetic, signed compares, integer reductions, and conversions that
// truncate toward zero and saturate.
// REQUIRES: numpy
// RUN: rm -rf %t && mkdir -p %t
// RUN: %host_python %S/Inputs/integers.py inputs %t
// RUN: kiln-run %s --input %t/a.npy --input %t/b.npy --input %t/x.npy --output-dir %t/out --check-reference | FileCheck %s
// CHECK-COUNT-8: matches
// RUN: %host_python %S/Inputs/integers.py check %t | FileCheck %s --check-prefix=NUMPY
// NUMPY: numpy agrees on 8 outputs
// The emulated GPU mapping takes the same kernels.
// RUN: kiln-run %s --input %t/a.npy --input %t/b.npy --input %t/x.npy --emulate-gpu --check-reference | FileCheck %s --check-prefix=EMULATED
// EMULATED-COUNT-8: matches

func.func @main(%a: tensor<4x6xi32>, %b: tensor<4x6xi32>, %x: tensor<4x6xf32>)
    -> (tensor<4x6xi32>, tensor<4x6xi32>, tensor<4x6xi1>, tensor<4xi32>,
        tensor<6xi64>, tensor<4x6xi32>, tensor<4x6xf32>, tensor<4x6xi32>) {
  %sum = "kiln.add"(%a, %b) : (tensor<4x6xi32>, tensor<4x6xi32>) -> tensor<4x6xi32>
  %prod = "kiln.mul"(%a, %b) : (tensor<4x6xi32>, tensor<4x6xi32>) -> tensor<4x6xi32>
  %lt = "kiln.cmp"(%a, %b) <{predicate = #kiln<predicate lt>}> : (tensor<4x6xi32>, tensor<4x6xi32>) -> tensor<4x6xi1>
  %rowmax = "kiln.reduce_max"(%a) <{dims = array<i64: 1>}> : (tensor<4x6xi32>) -> tensor<4xi32>
  %wide = "kiln.convert"(%a) : (tensor<4x6xi32>) -> tensor<4x6xi64>
  %colsum = "kiln.reduce_sum"(%wide) <{dims = array<i64: 0>}> : (tensor<4x6xi64>) -> tensor<6xi64>
  %neg = "kiln.neg"(%b) : (tensor<4x6xi32>) -> tensor<4x6xi32>
  %absd = "kiln.abs"(%neg) : (tensor<4x6xi32>) -> tensor<4x6xi32>
  %pick = "kiln.select"(%lt, %absd, %a) : (tensor<4x6xi1>, tensor<4x6xi32>, tensor<4x6xi32>) -> tensor<4x6xi32>
  %f = "kiln.convert"(%pick) : (tensor<4x6xi32>) -> tensor<4x6xf32>
  %scaled = "kiln.mul"(%f, %x) : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  %trunc = "kiln.convert"(%x) : (tensor<4x6xf32>) -> tensor<4x6xi32>
  return %sum, %prod, %lt, %rowmax, %colsum, %pick, %scaled, %trunc
      : tensor<4x6xi32>, tensor<4x6xi32>, tensor<4x6xi1>, tensor<4xi32>,
        tensor<6xi64>, tensor<4x6xi32>, tensor<4x6xf32>, tensor<4x6xi32>
}
