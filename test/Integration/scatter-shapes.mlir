// scatter_add along an inner dim with 2-D indices (repeated, out of range,
// negative), bf16 updates accumulating into one row, and a scatter of a
// transposed view; against the reference on the CPU and the emulated GPU.
// (The cuda backend runs no scatter yet: the runs write %t, which keeps
// them out of test/GPU/run_integration.py's lists.)
// RUN: rm -rf %t && mkdir -p %t
// RUN: kiln-run %s --random-inputs 3 --check-reference --output-dir %t/cpu | FileCheck %s
// RUN: kiln-run %s --random-inputs 3 --check-reference --emulate-gpu --output-dir %t/gpu | FileCheck %s
// CHECK-COUNT-3: matches

func.func @main(%t: tensor<2x5x3xf32>, %u: tensor<2x2x2x3xf32>, %h: tensor<4x3xbf16>, %hu: tensor<2x3xbf16>, %v: tensor<3x4xf32>) -> (tensor<2x5x3xf32>, tensor<4x3xbf16>, tensor<4x3xbf16>) {
  %ids = kiln.constant dense<[[1, 4], [1, -2]]> : tensor<2x2xi64>
  %s = kiln.scatter_add %t, %ids, %u dim = 1 : tensor<2x5x3xf32>, tensor<2x2xi64>, tensor<2x2x2x3xf32> -> tensor<2x5x3xf32>
  %i1 = kiln.constant dense<[3, 3]> : tensor<2xi32>
  %b = kiln.scatter_add %h, %i1, %hu dim = 0 : tensor<4x3xbf16>, tensor<2xi32>, tensor<2x3xbf16> -> tensor<4x3xbf16>
  %vt = kiln.transpose %v, perm = [1, 0] : tensor<3x4xf32> -> tensor<4x3xf32>
  %vb = kiln.convert %vt : tensor<4x3xf32> -> tensor<4x3xbf16>
  %i4 = kiln.constant dense<[1, 0, 1, 3]> : tensor<4xi32>
  %c = kiln.scatter_add %h, %i4, %vb dim = 0 : tensor<4x3xbf16>, tensor<4xi32>, tensor<4x3xbf16> -> tensor<4x3xbf16>
  return %s, %b, %c : tensor<2x5x3xf32>, tensor<4x3xbf16>, tensor<4x3xbf16>
}
