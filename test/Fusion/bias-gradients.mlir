// Bias gradients: the sum over the rows of a [rows, cols] gradient, fused
// with the elementwise backward that makes it. On the CPU
// -kiln-lower-column-reductions runs them a block of columns at a time
// down the rows; the widths here leave a last, partial block (70 columns:
// blocks of 32), or fit one block (7 and 30 columns: no parallel loop),
// and the reduction over a batch dim as well (the 3-d layer) runs two
// reduction loops. Checked by value against the reference interpreter
// (whose vjp costs a forward run per input element: the shapes are small),
// on the CPU and under --emulate-gpu.
// RUN: kiln-run %s --entry layer_bwd --random-inputs 1 --check-reference --report | FileCheck %s --check-prefix=LAYER
// RUN: kiln-run %s --entry narrow_bwd --random-inputs 2 --check-reference | FileCheck %s --check-prefix=NARROW
// RUN: kiln-run %s --entry batched_bwd --random-inputs 3 --check-reference | FileCheck %s --check-prefix=BATCHED
// RUN: kiln-run %s --entry layer_bwd --random-inputs 1 --check-reference --emulate-gpu | FileCheck %s --check-prefix=LAYER-GPU
// RUN: kiln-opt %s -kiln-cpu-pipeline --mlir-print-ir-after=kiln-lower-column-reductions 2>&1 >/dev/null | FileCheck %s --check-prefix=LOOPS

// LAYER: reference: out0 tensor<6x20xf32> matches
// LAYER: reference: out1 tensor<20x70xf32> matches
// LAYER: reference: out2 tensor<70xf32> matches
// LAYER: "fusion_groups":
// NARROW: reference: out0 tensor<7xf32> matches
// NARROW: reference: out1 tensor<50x7xf32> matches
// BATCHED: reference: out0 tensor<30xf32> matches
// BATCHED: reference: out1 tensor<4x9x30xf32> matches
// LAYER-GPU: reference: out2 tensor<70xf32> matches

// The layer's bias gradient (70 columns) walks the rows (6) inside each of
// 3 blocks of 32 columns, which the threads share.
// LOOPS: scf.parallel (%[[BLOCK:.+]]) = (%{{.+}}) to (%c70) step (%c32) {
// LOOPS: scf.for %{{.+}} = %{{.+}} to %c6
// LOOPS: scf.for %{{.+}} = %[[BLOCK]] to

func.func @layer(%x: tensor<6x20xf32>, %w: tensor<20x70xf32>, %b: tensor<70xf32>) -> tensor<6x70xf32> {
  %h = "kiln.matmul"(%x, %w) : (tensor<6x20xf32>, tensor<20x70xf32>) -> tensor<6x70xf32>
  %bb = "kiln.broadcast_in_dim"(%b) <{dims = array<i64: 1>}> : (tensor<70xf32>) -> tensor<6x70xf32>
  %a = "kiln.add"(%h, %bb) : (tensor<6x70xf32>, tensor<6x70xf32>) -> tensor<6x70xf32>
  %y = "kiln.gelu"(%a) <{approximate = true}> : (tensor<6x70xf32>) -> tensor<6x70xf32>
  return %y : tensor<6x70xf32>
}

func.func @layer_bwd(%x: tensor<6x20xf32>, %w: tensor<20x70xf32>, %b: tensor<70xf32>, %dy: tensor<6x70xf32>) -> (tensor<6x20xf32>, tensor<20x70xf32>, tensor<70xf32>) {
  %dx, %dw, %db = "kiln.vjp"(%x, %w, %b, %dy) <{callee = @layer, wrt = array<i64: 0, 1, 2>}> : (tensor<6x20xf32>, tensor<20x70xf32>, tensor<70xf32>, tensor<6x70xf32>) -> (tensor<6x20xf32>, tensor<20x70xf32>, tensor<70xf32>)
  return %dx, %dw, %db : tensor<6x20xf32>, tensor<20x70xf32>, tensor<70xf32>
}

func.func @narrow(%x: tensor<50x7xf32>, %b: tensor<7xf32>) -> tensor<50x7xf32> {
  %bb = "kiln.broadcast_in_dim"(%b) <{dims = array<i64: 1>}> : (tensor<7xf32>) -> tensor<50x7xf32>
  %a = "kiln.add"(%x, %bb) : (tensor<50x7xf32>, tensor<50x7xf32>) -> tensor<50x7xf32>
  %y = "kiln.tanh"(%a) : (tensor<50x7xf32>) -> tensor<50x7xf32>
  return %y : tensor<50x7xf32>
}

func.func @narrow_bwd(%x: tensor<50x7xf32>, %b: tensor<7xf32>, %dy: tensor<50x7xf32>) -> (tensor<7xf32>, tensor<50x7xf32>) {
  %dx, %db = "kiln.vjp"(%x, %b, %dy) <{callee = @narrow, wrt = array<i64: 0, 1>}> : (tensor<50x7xf32>, tensor<7xf32>, tensor<50x7xf32>) -> (tensor<50x7xf32>, tensor<7xf32>)
  return %db, %dx : tensor<7xf32>, tensor<50x7xf32>
}

func.func @batched(%x: tensor<4x9x30xf32>, %b: tensor<30xf32>) -> tensor<4x9x30xf32> {
  %bb = "kiln.broadcast_in_dim"(%b) <{dims = array<i64: 2>}> : (tensor<30xf32>) -> tensor<4x9x30xf32>
  %a = "kiln.add"(%x, %bb) : (tensor<4x9x30xf32>, tensor<4x9x30xf32>) -> tensor<4x9x30xf32>
  %y = "kiln.sigmoid"(%a) : (tensor<4x9x30xf32>) -> tensor<4x9x30xf32>
  return %y : tensor<4x9x30xf32>
}

func.func @batched_bwd(%x: tensor<4x9x30xf32>, %b: tensor<30xf32>, %dy: tensor<4x9x30xf32>) -> (tensor<30xf32>, tensor<4x9x30xf32>) {
  %dx, %db = "kiln.vjp"(%x, %b, %dy) <{callee = @batched, wrt = array<i64: 0, 1>}> : (tensor<4x9x30xf32>, tensor<30xf32>, tensor<4x9x30xf32>) -> (tensor<4x9x30xf32>, tensor<30xf32>)
  return %db, %dx : tensor<30xf32>, tensor<4x9x30xf32>
}
