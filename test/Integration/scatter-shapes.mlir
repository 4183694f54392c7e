// scatter_add along an inner dim with 2-D indices (repeated, out of range,
// negative), bf16 updates accumulating into one row, a scatter of a
// transposed view, and many updates of one row; against the reference on
// the CPU and the emulated GPU (whose lowering, three parallel kernels,
// makes each element's adds in the CPU's order: the same bits, compared).
// RUN: kiln-run %s --random-inputs 3 --check-reference | FileCheck %s
// RUN: rm -rf %t && mkdir -p %t
// RUN: kiln-run %s --random-inputs 3 --output-dir %t/cpu
// RUN: kiln-run %s --random-inputs 3 --check-reference --emulate-gpu --output-dir %t/gpu | FileCheck %s
// RUN: cmp %t/cpu/out0.npy %t/gpu/out0.npy
// RUN: cmp %t/cpu/out1.npy %t/gpu/out1.npy
// RUN: cmp %t/cpu/out2.npy %t/gpu/out2.npy
// RUN: cmp %t/cpu/out3.npy %t/gpu/out3.npy
// CHECK-COUNT-4: matches
// On the CPU the ordered scatter loops are kernels (-kiln-outline-kernels'
// loops): the entry runs as a host program.
// RUN: kiln-run %s --random-inputs 3 --report \
// RUN:   | %host_python -c "import json, sys; d = json.loads(sys.stdin.read().splitlines()[-1]); print('host program', d['host_steps'] > 0)" \
// RUN:   | FileCheck %s --check-prefix=HOST
// HOST: host program True

func.func @main(%t: tensor<2x5x3xf32>, %u: tensor<2x2x2x3xf32>, %h: tensor<4x3xbf16>, %hu: tensor<2x3xbf16>, %v: tensor<3x4xf32>, %w: tensor<4x33xf32>, %wu: tensor<3x4x33xf32>) -> (tensor<2x5x3xf32>, tensor<4x3xbf16>, tensor<4x3xbf16>, tensor<4x33xf32>) {
  %ids = kiln.constant dense<[[1, 4], [1, -2]]> : tensor<2x2xi64>
  %s = kiln.scatter_add %t, %ids, %u dim = 1 : tensor<2x5x3xf32>, tensor<2x2xi64>, tensor<2x2x2x3xf32> -> tensor<2x5x3xf32>
  %i1 = kiln.constant dense<[3, 3]> : tensor<2xi32>
  %b = kiln.scatter_add %h, %i1, %hu dim = 0 : tensor<4x3xbf16>, tensor<2xi32>, tensor<2x3xbf16> -> tensor<4x3xbf16>
  %vt = kiln.transpose %v, perm = [1, 0] : tensor<3x4xf32> -> tensor<4x3xf32>
  %vb = kiln.convert %vt : tensor<4x3xf32> -> tensor<4x3xbf16>
  %i4 = kiln.constant dense<[1, 0, 1, 3]> : tensor<4xi32>
  %c = kiln.scatter_add %h, %i4, %vb dim = 0 : tensor<4x3xbf16>, tensor<4xi32>, tensor<4x3xbf16> -> tensor<4x3xbf16>
  %i5 = kiln.constant dense<[[0, 0, 0, 0], [0, 3, 3, -1], [2, 0, 4, 0]]> : tensor<3x4xi64>
  %d = kiln.scatter_add %w, %i5, %wu dim = 0 : tensor<4x33xf32>, tensor<3x4xi64>, tensor<3x4x33xf32> -> tensor<4x33xf32>
  return %s, %b, %c, %d : tensor<2x5x3xf32>, tensor<4x3xbf16>, tensor<4x3xbf16>, tensor<4x33xf32>
}
