// RUN: kiln-opt %s -kiln-fuse-linalg-elementwise -split-input-file | FileCheck %s

// -kiln-fuse-linalg-elementwise fuses an elementwise linalg.generic producer
// into its consumer when every use of the producer is in that consumer and
// the consumer reads each producer element once (a permutation map). A
// producer that is also used elsewhere, read through a broadcast or a
// contraction, or consumed by a library call stays a kernel of its own.
// Operands a generic does not read are dropped.

// A chain fuses into one generic; the producer read twice by the same
// consumer (t * t) fuses too, computed once per element.
// CHECK-LABEL: func @chain
// CHECK-SAME: (%[[A:[^:]+]]: tensor<4x8xf32>, %[[B:[^:]+]]: tensor<4x8xf32>)
// CHECK: %[[G:.+]] = linalg.generic {{.*}} ins(%[[A]], %[[B]] : tensor<4x8xf32>, tensor<4x8xf32>) outs(%{{.+}} : tensor<4x8xf32>)
// CHECK-NEXT: ^bb0(%[[X:[^:]+]]: f32, %[[Y:[^:]+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[T:.+]] = math.tanh %[[X]] : f32
// CHECK-NEXT: %[[M:.+]] = arith.mulf %[[T]], %[[T]] : f32
// CHECK-NEXT: %[[S:.+]] = arith.addf %[[M]], %[[Y]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
// CHECK-NOT: linalg.generic
// CHECK: return %[[G]]
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @chain(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e0 = tensor.empty() : tensor<4x8xf32>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<4x8xf32>) outs(%e0 : tensor<4x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %0 = math.tanh %x : f32
    linalg.yield %0 : f32
  } -> tensor<4x8xf32>
  %e1 = tensor.empty() : tensor<4x8xf32>
  %m = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%t, %t : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e1 : tensor<4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %0 = arith.mulf %x, %y : f32
    linalg.yield %0 : f32
  } -> tensor<4x8xf32>
  %e2 = tensor.empty() : tensor<4x8xf32>
  %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%m, %b : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e2 : tensor<4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %0 = arith.addf %x, %y : f32
    linalg.yield %0 : f32
  } -> tensor<4x8xf32>
  return %s : tensor<4x8xf32>
}

// -----

// A transposed read is a permutation: each element is still read once, so
// the producer fuses and the fused op reads the input through the transpose.
// CHECK-LABEL: func @transposed
// CHECK-SAME: (%[[A:[^:]+]]: tensor<8x4xf32>)
// CHECK: %[[G:.+]] = linalg.generic {{.*}} ins(%[[A]] : tensor<8x4xf32>) outs(%{{.+}} : tensor<4x8xf32>)
// CHECK: %[[E:.+]] = math.exp
// CHECK-NEXT: %[[N:.+]] = arith.negf %[[E]] : f32
// CHECK-NEXT: linalg.yield %[[N]] : f32
// CHECK-NOT: linalg.generic
// CHECK: return %[[G]]
#id = affine_map<(d0, d1) -> (d0, d1)>
#t = affine_map<(d0, d1) -> (d1, d0)>
func.func @transposed(%a: tensor<8x4xf32>) -> tensor<4x8xf32> {
  %e0 = tensor.empty() : tensor<8x4xf32>
  %x = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<8x4xf32>) outs(%e0 : tensor<8x4xf32>) {
  ^bb0(%v: f32, %o: f32):
    %0 = math.exp %v : f32
    linalg.yield %0 : f32
  } -> tensor<8x4xf32>
  %e1 = tensor.empty() : tensor<4x8xf32>
  %n = linalg.generic {indexing_maps = [#t, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x4xf32>) outs(%e1 : tensor<4x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %0 = arith.negf %v : f32
    linalg.yield %0 : f32
  } -> tensor<4x8xf32>
  return %n : tensor<4x8xf32>
}

// -----

// A producer that is also a result is not fused: the fused kernel would
// compute it again.
// CHECK-LABEL: func @shared
// CHECK: %[[T:.+]] = linalg.generic
// CHECK: math.tanh
// CHECK: %[[M:.+]] = linalg.generic {{.*}} ins(%[[T]], %{{.+}} :
// CHECK-NOT: math.tanh
// CHECK: arith.mulf
// CHECK: return %[[M]], %[[T]]
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @shared(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %e0 = tensor.empty() : tensor<4x8xf32>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<4x8xf32>) outs(%e0 : tensor<4x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %0 = math.tanh %x : f32
    linalg.yield %0 : f32
  } -> tensor<4x8xf32>
  %e1 = tensor.empty() : tensor<4x8xf32>
  %m = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%t, %b : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e1 : tensor<4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %0 = arith.mulf %x, %y : f32
    linalg.yield %0 : f32
  } -> tensor<4x8xf32>
  return %m, %t : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// A producer read through a broadcast would be computed once per row: it
// stays a kernel of its own.
// CHECK-LABEL: func @broadcast
// CHECK: %[[X:.+]] = linalg.generic {{.*}} outs(%{{.+}} : tensor<8xf32>)
// CHECK: math.exp
// CHECK: linalg.generic {{.*}} ins(%[[X]], %{{.+}} : tensor<8xf32>, tensor<4x8xf32>)
// CHECK-NOT: math.exp
// CHECK: arith.addf
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
#id1 = affine_map<(d0) -> (d0)>
func.func @broadcast(%a: tensor<8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e0 = tensor.empty() : tensor<8xf32>
  %x = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%a : tensor<8xf32>) outs(%e0 : tensor<8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %0 = math.exp %v : f32
    linalg.yield %0 : f32
  } -> tensor<8xf32>
  %e1 = tensor.empty() : tensor<4x8xf32>
  %s = linalg.generic {indexing_maps = [#row, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %b : tensor<8xf32>, tensor<4x8xf32>) outs(%e1 : tensor<4x8xf32>) {
  ^bb0(%v: f32, %w: f32, %o: f32):
    %0 = arith.addf %v, %w : f32
    linalg.yield %0 : f32
  } -> tensor<4x8xf32>
  return %s : tensor<4x8xf32>
}

// -----

// A matmul reads each element of its operands once per output column: the
// elementwise producer of its lhs is not fused into it.
// CHECK-LABEL: func @contraction
// CHECK: %[[X:.+]] = linalg.generic {{.*}} outs(%{{.+}} : tensor<4x16xf32>)
// CHECK: math.tanh
// CHECK: %[[F:.+]] = linalg.fill
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[X]], %{{.+}} : tensor<4x16xf32>, tensor<16x8xf32>) outs(%[[F]] : tensor<4x8xf32>)
// CHECK-NOT: math.tanh
// CHECK: arith.mulf
#id = affine_map<(d0, d1) -> (d0, d1)>
#mm_a = affine_map<(d0, d1, d2) -> (d0, d2)>
#mm_b = affine_map<(d0, d1, d2) -> (d2, d1)>
#mm_c = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @contraction(%a: tensor<4x16xf32>, %b: tensor<16x8xf32>) -> tensor<4x8xf32> {
  %e0 = tensor.empty() : tensor<4x16xf32>
  %x = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<4x16xf32>) outs(%e0 : tensor<4x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %0 = math.tanh %v : f32
    linalg.yield %0 : f32
  } -> tensor<4x16xf32>
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<4x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %c = linalg.generic {indexing_maps = [#mm_a, #mm_b, #mm_c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %b : tensor<4x16xf32>, tensor<16x8xf32>) outs(%f : tensor<4x8xf32>) {
  ^bb0(%v: f32, %w: f32, %acc: f32):
    %0 = arith.mulf %v, %w : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<4x8xf32>
  return %c : tensor<4x8xf32>
}

// -----

// A consumer with a library_call becomes a runtime call, which cannot
// compute a fused producer: nothing is fused into it.
// CHECK-LABEL: func @library_call
// CHECK: %[[X:.+]] = linalg.generic
// CHECK: math.exp
// CHECK: linalg.generic {{.*}} library_call = "kiln_rt_custom"} ins(%[[X]] : tensor<4x8xf32>)
// CHECK-NOT: math.exp
// CHECK: arith.negf
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @library_call(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e0 = tensor.empty() : tensor<4x8xf32>
  %x = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<4x8xf32>) outs(%e0 : tensor<4x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %0 = math.exp %v : f32
    linalg.yield %0 : f32
  } -> tensor<4x8xf32>
  %e1 = tensor.empty() : tensor<4x8xf32>
  %n = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"], library_call = "kiln_rt_custom"} ins(%x : tensor<4x8xf32>) outs(%e1 : tensor<4x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %0 = arith.negf %v : f32
    linalg.yield %0 : f32
  } -> tensor<4x8xf32>
  return %n : tensor<4x8xf32>
}

// -----

// An input the body never reads is dropped.
// CHECK-LABEL: func @unused_operand
// CHECK-SAME: (%[[A:[^:]+]]: tensor<4x8xf32>, %{{[^:]+}}: tensor<4x8xf32>)
// CHECK: linalg.generic {indexing_maps = [#{{.+}}, #{{.+}}], {{.*}} ins(%[[A]] : tensor<4x8xf32>) outs(%{{.+}} : tensor<4x8xf32>)
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @unused_operand(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e0 = tensor.empty() : tensor<4x8xf32>
  %x = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%a, %b : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e0 : tensor<4x8xf32>) {
  ^bb0(%v: f32, %w: f32, %o: f32):
    %0 = math.exp %v : f32
    linalg.yield %0 : f32
  } -> tensor<4x8xf32>
  return %x : tensor<4x8xf32>
}

// -----

// A reduction whose input an elementwise producer computes for it alone:
// the linalg.reduce becomes a generic and the producer fuses into it, so
// that the exponentials are never stored. The fused reduction keeps the
// kernel id that it shares with the fill of its accumulator.
// CHECK-LABEL: func @fused_into_reduction
// CHECK-SAME: (%[[A:[^:]+]]: tensor<64x300xf32>)
// CHECK: %[[FILL:.+]] = linalg.fill {kiln.kernel_id = 3 : i64}
// CHECK-NOT: linalg.reduce
// CHECK: %[[R:.+]] = linalg.generic {indexing_maps = [#{{.+}}, #{{.+}}], iterator_types = ["reduction", "reduction"]} ins(%[[A]] : tensor<64x300xf32>) outs(%[[FILL]] : tensor<f32>) attrs = {kiln.kernel_id = 3 : i64}
// CHECK-NEXT: ^bb0(%[[X:[^:]+]]: f32, %[[ACC:[^:]+]]: f32):
// CHECK-NEXT: %[[E:.+]] = math.exp %[[X]] : f32
// CHECK-NEXT: %[[S:.+]] = arith.addf %[[E]], %[[ACC]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
// CHECK: return %[[R]]
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @fused_into_reduction(%a: tensor<64x300xf32>) -> tensor<f32> {
  %e0 = tensor.empty() : tensor<64x300xf32>
  %x = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<64x300xf32>) outs(%e0 : tensor<64x300xf32>) {
  ^bb0(%v: f32, %o: f32):
    %0 = math.exp %v : f32
    linalg.yield %0 : f32
  } -> tensor<64x300xf32>
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<f32>
  %init = linalg.fill {kiln.kernel_id = 3 : i64} ins(%zero : f32) outs(%e1 : tensor<f32>) -> tensor<f32>
  %r = linalg.reduce ins(%x : tensor<64x300xf32>) outs(%init : tensor<f32>) dimensions = [0, 1] {kiln.kernel_id = 3 : i64}
    (%in: f32, %acc: f32) {
      %0 = arith.addf %in, %acc : f32
      linalg.yield %0 : f32
    }
  return %r : tensor<f32>
}

// -----

// A producer that is also a result: the reduction stays a linalg.reduce
// and reads the stored values.
// CHECK-LABEL: func @reduction_of_a_result
// CHECK: %[[X:.+]] = linalg.generic
// CHECK: math.exp
// CHECK: %[[R:.+]] = linalg.reduce ins(%[[X]] : tensor<64x300xf32>)
// CHECK: return %[[X]], %[[R]]
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @reduction_of_a_result(%a: tensor<64x300xf32>) -> (tensor<64x300xf32>, tensor<64xf32>) {
  %e0 = tensor.empty() : tensor<64x300xf32>
  %x = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<64x300xf32>) outs(%e0 : tensor<64x300xf32>) {
  ^bb0(%v: f32, %o: f32):
    %0 = math.exp %v : f32
    linalg.yield %0 : f32
  } -> tensor<64x300xf32>
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e1 : tensor<64xf32>) -> tensor<64xf32>
  %r = linalg.reduce ins(%x : tensor<64x300xf32>) outs(%init : tensor<64xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %0 = arith.addf %in, %acc : f32
      linalg.yield %0 : f32
    }
  return %x, %r : tensor<64x300xf32>, tensor<64xf32>
}

// -----

// A reduction and a fill with no kernel id (outside any kernel): the
// producer fuses, and the fused reduction gets no id.
// CHECK-LABEL: func @fused_without_kernel_id
// CHECK-NOT: linalg.reduce
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK-NOT: kiln.kernel_id
// CHECK: math.tanh
// CHECK: return
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @fused_without_kernel_id(%a: tensor<64x300xf32>) -> tensor<64xf32> {
  %e0 = tensor.empty() : tensor<64x300xf32>
  %x = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<64x300xf32>) outs(%e0 : tensor<64x300xf32>) {
  ^bb0(%v: f32, %o: f32):
    %0 = math.tanh %v : f32
    linalg.yield %0 : f32
  } -> tensor<64x300xf32>
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e1 : tensor<64xf32>) -> tensor<64xf32>
  %r = linalg.reduce ins(%x : tensor<64x300xf32>) outs(%init : tensor<64xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %0 = arith.addf %in, %acc : f32
      linalg.yield %0 : f32
    }
  return %r : tensor<64xf32>
}
