// A kiln op that -kiln-autodiff copied to recompute a checkpointed value
// (kiln.recomputed) lowers to ops that carry the attribute, so that no
// later CSE can fold the copy into the forward op it repeats (which would
// keep the forward's value alive for the derivative after all).
// RUN: kiln-opt %s -kiln-lower-to-linalg -cse | FileCheck %s

// CHECK-LABEL: func.func @recomputed
// CHECK:      %[[F:.+]] = linalg.generic {{.*}}"parallel"]} ins({{.*}}) outs({{.*}}) {{[{]$}}
// CHECK:      %[[R:.+]] = linalg.generic {{.*}}"parallel"]} ins({{.*}}) outs({{.*}}) attrs = {kiln.recomputed} {{[{]$}}
// CHECK:      %[[P:.+]] = linalg.generic {{.*}}"reduction"]} ins({{.*}}) outs({{.*}}) {{[{]$}}
// CHECK:      %[[RP:.+]] = linalg.generic {{.*}}"reduction"]} ins({{.*}}) outs({{.*}}) attrs = {kiln.recomputed} {{[{]$}}
// CHECK:      return %[[F]], %[[R]], %[[P]], %[[RP]]
func.func @recomputed(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %f = kiln.exp %x {kiln.checkpoint = 1 : i64} : tensor<4x8xf32>
  %r = kiln.exp %x {kiln.recomputed} : tensor<4x8xf32>
  %p = kiln.matmul %x, %w {kiln.checkpoint = 1 : i64} : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %rp = kiln.matmul %x, %w {kiln.recomputed} : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  return %f, %r, %p, %rp : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}
