// kiln.take, scatter_add, argmax, iota and rng_uniform (issue 38) on the
// CPU, against the reference interpreter and against numpy (with a Philox
// written from the contract): out-of-range indices give NaN in take and
// are dropped by scatter_add, repeated ones accumulate, argmax's ties go
// to the first maximum and the first NaN wins.
// REQUIRES: numpy
// RUN: rm -rf %t && mkdir -p %t
// RUN: %host_python %S/Inputs/gathers.py inputs %t
// RUN: kiln-run %s --input %t/table.npy --input %t/ids.npy --input %t/cot.npy --input %t/logits.npy --input %t/key.npy --output-dir %t/out --check-reference 2>&1 | FileCheck %s
// CHECK-COUNT-5: matches
// RUN: %host_python %S/Inputs/gathers.py check %t | FileCheck %s --check-prefix=NUMPY
// NUMPY: numpy agrees on 5 outputs
// The scatter is the same bits on every run.
// RUN: kiln-run %s --input %t/table.npy --input %t/ids.npy --input %t/cot.npy --input %t/logits.npy --input %t/key.npy --output-dir %t/again
// RUN: cmp %t/out/out1.npy %t/again/out1.npy
// The GPU kernels, run on the CPU one thread after another: the scatter's
// chains give the CPU's bits.
// RUN: kiln-run %s --input %t/table.npy --input %t/ids.npy --input %t/cot.npy --input %t/logits.npy --input %t/key.npy --emulate-gpu --check-reference --output-dir %t/gpu 2>&1 | FileCheck %s
// RUN: cmp %t/out/out1.npy %t/gpu/out1.npy
// The cuda backend compiles every kernel, the scatter's included.
// RUN: env KILN_RT_LIBCUDA=%t/none.so kiln-run %s --input %t/table.npy --input %t/ids.npy --input %t/cot.npy --input %t/logits.npy --input %t/key.npy --backend cuda --dump-ptx %t/all.ptx 2>&1 | FileCheck %s --check-prefix=CUDA
// CUDA: wrote the PTX for sm_{{[0-9]+}}
// RUN: FileCheck %s --check-prefix=PTX < %t/all.ptx
// PTX: .entry

func.func @main(%table: tensor<7x4xf32>, %ids: tensor<2x3xi64>, %cot: tensor<2x3x4xf32>, %logits: tensor<3x5xf32>, %key: tensor<2xi64>)
    -> (tensor<2x3x4xf32>, tensor<7x4xf32>, tensor<3xi64>, tensor<2x3xi32>, tensor<4x6xf32>) {
  %e = "kiln.take"(%table, %ids) <{dim = 0 : i64}> : (tensor<7x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
  %s = "kiln.scatter_add"(%table, %ids, %cot) <{dim = 0 : i64}> : (tensor<7x4xf32>, tensor<2x3xi64>, tensor<2x3x4xf32>) -> tensor<7x4xf32>
  %a = "kiln.argmax"(%logits) <{dim = 1 : i64}> : (tensor<3x5xf32>) -> tensor<3xi64>
  %p = "kiln.iota"() <{dim = 1 : i64}> : () -> tensor<2x3xi32>
  %u = "kiln.rng_uniform"(%key) : (tensor<2xi64>) -> tensor<4x6xf32>
  return %e, %s, %a, %p, %u : tensor<2x3x4xf32>, tensor<7x4xf32>, tensor<3xi64>, tensor<2x3xi32>, tensor<4x6xf32>
}
