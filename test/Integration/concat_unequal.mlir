// Concat exits of unequal parts, on dim 0 and on dim 1, fused with their
// producers: each group is one kernel whose loop nests write straight into
// one buffer (no copies, no temporaries), and the results match the
// reference interpreter. The dim-0 concat reads the dim-1 one, which is
// then written in place into its slice of the caller's result.
// (Were the dim-1 concat also read elsewhere, it would be a buffer of its
// own, copied into that slice.)

// RUN: kiln-run %s --random-inputs 91 --check-reference --report | FileCheck %s
// RUN: kiln-opt %s -kiln-cpu-pipeline=min-parallel-iterations=0 | FileCheck %s --check-prefix=IR
// RUN: kiln-opt %s -kiln-cpu-pipeline | FileCheck %s --check-prefix=SMALL

// CHECK: reference: out0 tensor<6x11xf32> matches
// CHECK: "fusion_groups": 2
// CHECK-SAME: "unique_kernels": 2
// CHECK-SAME: "kernel_launches": 2

// IR-LABEL: llvm.func @unequal
// IR-NOT: llvm.call @_mlir_memref_to_llvm_alloc
// IR-NOT: memcpy
// IR-NOT: memrefCopy
// IR-COUNT-2: llvm.call @kiln_kernel_
// IR-NOT: llvm.call @kiln_kernel_
// IR-LABEL: llvm.func @_mlir_ciface_unequal
// The dim-1 kernel: one parallel region per part.
// IR-LABEL: llvm.func @kiln_kernel_0
// IR-COUNT-2: omp.parallel
// IR-LABEL: llvm.func @kiln_kernel_1
// IR-COUNT-1: omp.parallel
// With the default threshold, these loops are too small for threads.
// SMALL-NOT: omp.parallel
func.func @unequal(%x: tensor<4x8xf32>, %y: tensor<4x3xf32>, %z: tensor<2x11xf32>)
    -> tensor<6x11xf32> attributes {llvm.emit_c_interface} {
  %a = kiln.exp %x : tensor<4x8xf32>
  %b = kiln.tanh %y : tensor<4x3xf32>
  %k = kiln.concat %a, %b dim = 1 : tensor<4x8xf32>, tensor<4x3xf32> -> tensor<4x11xf32>
  %n = kiln.neg %z : tensor<2x11xf32>
  %j = kiln.concat %k, %n dim = 0 : tensor<4x11xf32>, tensor<2x11xf32> -> tensor<6x11xf32>
  return %j : tensor<6x11xf32>
}
