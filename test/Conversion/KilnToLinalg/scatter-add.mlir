// kiln.scatter_add on the CPU: one in-place add per index, in order (a
// host loop); with parallel-scatters (the GPU pipeline's): next and head
// chains as two reductions, then one parallel walk per element that makes
// the same adds in the same order.
// RUN: kiln-opt %s -kiln-lower-to-linalg | FileCheck %s --check-prefix=LOOP
// RUN: kiln-opt %s -kiln-lower-to-linalg=parallel-scatters | FileCheck %s --check-prefix=CHAINS

// LOOP-LABEL: func.func @rows
// LOOP: bufferization.alloc_tensor() copy(%arg0)
// LOOP: scf.for
// LOOP: scf.if
// LOOP: linalg.generic
// LOOP: arith.addf

// CHAINS-LABEL: func.func @rows
// CHAINS-NOT: scf.for
// The next pointer of each index: the least later equal one.
// CHAINS: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}} ins(%arg1, %arg1 : tensor<5xi64>, tensor<5xi64>)
// CHAINS: arith.cmpi sgt
// CHAINS: arith.minsi
// The head of each row's chain.
// CHAINS: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}} ins(%arg1 : tensor<5xi64>) outs({{.*}} : tensor<6xi64>)
// CHAINS: arith.minsi
// The walk: one element per iteration, its updates in increasing order.
// CHAINS: linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]{{.*}} ins(%arg0, %{{.*}} : tensor<6x4xf32>, tensor<6xi64>)
// CHAINS: scf.while
// CHAINS: tensor.extract %arg2
// CHAINS: arith.addf
// CHAINS: tensor.extract
// CHAINS: scf.yield
func.func @rows(%t: tensor<6x4xf32>, %ids: tensor<5xi64>, %u: tensor<5x4xf32>) -> tensor<6x4xf32> {
  %s = kiln.scatter_add %t, %ids, %u dim = 0 : tensor<6x4xf32>, tensor<5xi64>, tensor<5x4xf32> -> tensor<6x4xf32>
  return %s : tensor<6x4xf32>
}

// 2-D i32 indices into a bf16 table's inner dim: flattened for the chains,
// each add rounded to bf16 as the loop's are.
// CHAINS-LABEL: func.func @inner_dim
// CHAINS: tensor.collapse_shape %arg1 {{\[\[}}0, 1]] : tensor<2x2xi32> into tensor<4xi32>
// CHAINS: arith.extsi
// CHAINS: scf.while
// CHAINS: arith.extf
// CHAINS: arith.addf
// CHAINS: arith.truncf
func.func @inner_dim(%t: tensor<3x5xbf16>, %ids: tensor<2x2xi32>, %u: tensor<3x2x2xbf16>) -> tensor<3x5xbf16> {
  %s = kiln.scatter_add %t, %ids, %u dim = 1 : tensor<3x5xbf16>, tensor<2x2xi32>, tensor<3x2x2xbf16> -> tensor<3x5xbf16>
  return %s : tensor<3x5xbf16>
}
