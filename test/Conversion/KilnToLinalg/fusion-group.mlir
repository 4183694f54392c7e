// RUN: kiln-opt %s -kiln-lower-to-linalg -kiln-fuse-linalg-elementwise -split-input-file | FileCheck %s

// A fusion group's body lowers in place; linalg elementwise fusion then
// makes a chain of elementwise ops one linalg.generic. A producer used twice
// by the same consumer (t * t) fuses too.
// CHECK-LABEL: func @group
// CHECK-NOT: kiln.
// CHECK: %[[G:.+]] = linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<4x8xf32>) outs(%{{.*}} : tensor<4x8xf32>)
// CHECK: math.tanh
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK-NOT: linalg.generic
// CHECK: return %[[G]]
func.func @group(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = kiln.fusion_group %a, %b : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>):
    %t = kiln.tanh %x : tensor<4x8xf32>
    %m = kiln.mul %t, %t : tensor<4x8xf32>
    %s = kiln.add %m, %y : tensor<4x8xf32>
    kiln.yield %s : tensor<4x8xf32>
  }
  return %0 : tensor<4x8xf32>
}

// -----

// A producer with uses in two ops is not fused (it would be computed twice).
// CHECK-LABEL: func @shared_producer
// CHECK: linalg.generic
// CHECK: math.tanh
// CHECK: linalg.generic
// CHECK-NOT: math.tanh
// CHECK: arith.mulf
func.func @shared_producer(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %t = kiln.tanh %a : tensor<4x8xf32>
  %m = kiln.mul %t, %b : tensor<4x8xf32>
  return %m, %t : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// chunk(a + b + c): both adds are read only through the slices (the first
// through the second), so they are evaluated at the sliced indices and the
// whole group is one generic over the 4x8 domain, reading each input at the
// two column offsets.
// CHECK-LABEL: func @sliced_sum
// CHECK-COUNT-6: tensor.extract_slice
// CHECK: %[[G:.+]]:2 = linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins({{.*}} : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) outs(
// CHECK-NOT: linalg.generic
// CHECK: return %[[G]]#0, %[[G]]#1
func.func @sliced_sum(%a: tensor<4x16xf32>, %b: tensor<4x16xf32>, %c: tensor<4x16xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %r:2 = kiln.fusion_group %a, %b, %c : (tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  ^bb0(%x: tensor<4x16xf32>, %y: tensor<4x16xf32>, %z: tensor<4x16xf32>):
    %s = kiln.add %x, %y : tensor<4x16xf32>
    %t = kiln.add %s, %z : tensor<4x16xf32>
    %lo = kiln.slice %t, offsets = [0, 0], sizes = [4, 8] : tensor<4x16xf32> -> tensor<4x8xf32>
    %hi = kiln.slice %t, offsets = [0, 8], sizes = [4, 8] : tensor<4x16xf32> -> tensor<4x8xf32>
    %g = kiln.sigmoid %lo : tensor<4x8xf32>
    %h = kiln.tanh %hi : tensor<4x8xf32>
    %m = kiln.mul %g, %h : tensor<4x8xf32>
    kiln.yield %m, %g : tensor<4x8xf32>, tensor<4x8xf32>
  }
  return %r#0, %r#1 : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// A wide value that is also a result keeps its own domain: the group is
// lowered op by op (the wide ops, then the sliced tanh).
// CHECK-LABEL: func @sliced_sum_escapes
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<4x16xf32>)
// CHECK: tensor.extract_slice
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<4x8xf32>)
func.func @sliced_sum_escapes(%a: tensor<4x16xf32>, %b: tensor<4x16xf32>) -> (tensor<4x8xf32>, tensor<4x16xf32>) {
  %r:2 = kiln.fusion_group %a, %b : (tensor<4x16xf32>, tensor<4x16xf32>) -> (tensor<4x8xf32>, tensor<4x16xf32>) {
  ^bb0(%x: tensor<4x16xf32>, %y: tensor<4x16xf32>):
    %s = kiln.add %x, %y : tensor<4x16xf32>
    %t = kiln.exp %s : tensor<4x16xf32>
    %lo = kiln.slice %t, offsets = [0, 0], sizes = [4, 8] : tensor<4x16xf32> -> tensor<4x8xf32>
    %g = kiln.tanh %lo : tensor<4x8xf32>
    kiln.yield %g, %t : tensor<4x8xf32>, tensor<4x16xf32>
  }
  return %r#0, %r#1 : tensor<4x8xf32>, tensor<4x16xf32>
}

// -----

// A reduction over the leading dim that only the result reads ends the
// kernel: its output is indexed by the kept dim and starts from the
// identity; the loop over the kept dim comes first (parallel), the reduced
// one inside. The elementwise output is written by the same generic; the
// fill runs in the same kernel (one kiln.kernel_id).
// CHECK-DAG: #[[FULL:.+]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-DAG: #[[KEPT:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func @bias_grad
// CHECK: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[ACC:.+]] = linalg.fill {kiln.kernel_id = [[ID:[0-9]+]] : i64} ins(%[[ZERO]] : f32) outs(%{{.+}} : tensor<8xf32>)
// CHECK: %[[G:.+]]:2 = linalg.generic {indexing_maps = [#[[FULL]], #[[FULL]], #[[KEPT]], #[[FULL]]], iterator_types = ["parallel", "reduction"]} ins(%{{.+}}, %{{.+}} : tensor<4x8xf32>, tensor<4x8xf32>) outs(%[[ACC]], %{{.+}} : tensor<8xf32>, tensor<4x8xf32>) attrs = {kiln.kernel_id = [[ID]] : i64}
// CHECK: ^bb0(%[[X:.+]]: f32, %[[Y:.+]]: f32, %[[SUM:.+]]: f32, %{{.+}}: f32):
// CHECK: %[[M:.+]] = arith.mulf %[[X]], %[[Y]] : f32
// CHECK: %[[NEXT:.+]] = arith.addf %[[SUM]], %[[M]] : f32
// CHECK: linalg.yield %[[NEXT]], %[[M]] : f32, f32
// CHECK-NOT: linalg.generic
// CHECK: return %[[G]]#0, %[[G]]#1
func.func @bias_grad(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> (tensor<8xf32>, tensor<4x8xf32>) {
  %r:2 = kiln.fusion_group %a, %b : (tensor<4x8xf32>, tensor<4x8xf32>) -> (tensor<8xf32>, tensor<4x8xf32>) {
  ^bb0(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>):
    %m = kiln.mul %x, %y : tensor<4x8xf32>
    %s = kiln.reduce_sum %m, dims = [0] : tensor<4x8xf32> -> tensor<8xf32>
    kiln.yield %s, %m : tensor<8xf32>, tensor<4x8xf32>
  }
  return %r#0, %r#1 : tensor<8xf32>, tensor<4x8xf32>
}

// -----

// A reduction over a trailing dim is not an epilogue: op by op, after
// which -kiln-fuse-linalg-elementwise fuses the exponential into the
// reduction (a generic with a reduction loop: no stored exponentials).
// The fused reduction keeps the kernel id of its accumulator's fill.
// CHECK-LABEL: func @row_sum
// CHECK-NOT: linalg.reduce
// CHECK: linalg.fill {kiln.kernel_id = [[ID:[0-9]+]] : i64}
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}}attrs = {kiln.kernel_id = [[ID]] : i64}
// CHECK: math.exp
// CHECK: arith.addf
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @row_sum(%a: tensor<4x8xf32>) -> tensor<4xf32> {
  %r = kiln.fusion_group %a : (tensor<4x8xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4x8xf32>):
    %e = kiln.exp %x : tensor<4x8xf32>
    %s = kiln.reduce_sum %e, dims = [1] : tensor<4x8xf32> -> tensor<4xf32>
    kiln.yield %s : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// A concat exit of unequal parts: one generic per part shape, each writing
// its view of the one destination, all tagged as one kernel.
// CHECK-LABEL: func @unequal_parts
// CHECK: %[[D:.+]] = bufferization.alloc_tensor() : tensor<7x8xf32>
// CHECK: %[[G0:.+]] = linalg.generic {{.*}} outs(%{{.+}} : tensor<4x8xf32>) attrs = {kiln.kernel_id = [[ID:[0-9]+]] : i64}
// CHECK: math.tanh
// CHECK: %[[I0:.+]] = tensor.insert_slice %[[G0]] into %[[D]][0, 0] [4, 8] [1, 1]
// CHECK: %[[G1:.+]] = linalg.generic {{.*}} outs(%{{.+}} : tensor<3x8xf32>) attrs = {kiln.kernel_id = [[ID]] : i64}
// CHECK: math.exp
// CHECK: %[[I1:.+]] = tensor.insert_slice %[[G1]] into %[[I0]][4, 0] [3, 8] [1, 1]
// CHECK: return %[[I1]]
func.func @unequal_parts(%a: tensor<4x8xf32>, %b: tensor<3x8xf32>) -> tensor<7x8xf32> {
  %r = kiln.fusion_group %a, %b : (tensor<4x8xf32>, tensor<3x8xf32>) -> tensor<7x8xf32> {
  ^bb0(%x: tensor<4x8xf32>, %y: tensor<3x8xf32>):
    %t = kiln.tanh %x : tensor<4x8xf32>
    %e = kiln.exp %y : tensor<3x8xf32>
    %k = kiln.concat %t, %e dim = 0 : tensor<4x8xf32>, tensor<3x8xf32> -> tensor<7x8xf32>
    kiln.yield %k : tensor<7x8xf32>
  }
  return %r : tensor<7x8xf32>
}

// -----

// Nests never share work: when two output shapes read one value (here the
// wide exp, also read through a slice), the group is lowered op by op.
// CHECK-LABEL: func @unequal_shared
// CHECK-NOT: kiln.kernel_id
// CHECK: return
func.func @unequal_shared(%a: tensor<4x16xf32>) -> (tensor<4x8xf32>, tensor<4x16xf32>) {
  %r:2 = kiln.fusion_group %a : (tensor<4x16xf32>) -> (tensor<4x8xf32>, tensor<4x16xf32>) {
  ^bb0(%x: tensor<4x16xf32>):
    %t = kiln.exp %x : tensor<4x16xf32>
    %lo = kiln.slice %t, offsets = [0, 0], sizes = [4, 8] : tensor<4x16xf32> -> tensor<4x8xf32>
    %g = kiln.tanh %lo : tensor<4x8xf32>
    kiln.yield %g, %t : tensor<4x8xf32>, tensor<4x16xf32>
  }
  return %r#0, %r#1 : tensor<4x8xf32>, tensor<4x16xf32>
}
