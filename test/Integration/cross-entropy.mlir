// A cross-entropy over integer labels with its gradient, as kiln.nn.
// functional.cross_entropy records it (the label's log-probability picked
// with iota == label; log_softmax's max a stop-gradient, computed outside the
// vjp's callee): forward and backward over the [8, 40] logits are one row
// kernel, and the results match the reference (test/GPU's runners run this
// line on the emulated and the real GPU too).
// RUN: kiln-run %s --random-inputs 3 --check-reference | FileCheck %s
// CHECK: reference: out0 tensor<8x40xf32> matches
// CHECK: reference: out1 tensor<f32> matches

// RUN: kiln-opt %s -kiln-autodiff -canonicalize -cse -symbol-dce -kiln-fuse | FileCheck %s --check-prefix=FUSED
// FUSED: kiln.fusion_group
// FUSED: kiln.fusion_group
// FUSED: kiln.fusion_group
// The row kernel: the max, the sum of exps, the picked label and the
// gradient, all in one group over the logits.
// FUSED: kiln.fusion_group %arg1
// FUSED: kiln.reduce_max {{.*}} dims = [1]
// FUSED: kiln.iota dim = 1
// FUSED: kiln.reduce_sum {{.*}} dims = [1]
// FUSED: kiln.reduce_sum {{.*}} dims = [1]
// FUSED: kiln.yield {{.*}} : tensor<8x40xf32>, tensor<8xf32>
// FUSED-NOT: dims = [1]
// FUSED: return

module {
  func.func @main(%arg0: tensor<8xi64>, %arg1: tensor<8x40xf32>, %arg2: tensor<f32>, %arg3: tensor<i64>) -> (tensor<8x40xf32>, tensor<f32>) {
    %0 = kiln.reduce_max %arg1, dims = [1] : tensor<8x40xf32> -> tensor<8xf32>
    %1 = kiln.reshape %0 : tensor<8xf32> -> tensor<8x1xf32>
    %2 = kiln.broadcast_in_dim %1, dims = [0, 1] : tensor<8x1xf32> -> tensor<8x40xf32>
    %3 = kiln.constant dense<1.000000e+00> : tensor<f32>
    %4 = kiln.vjp @vjp_callee_b7b01e5eaa1cc38a(%arg0, %arg1, %2, %arg2, %arg3, %3) wrt [1] : (tensor<8xi64>, tensor<8x40xf32>, tensor<8x40xf32>, tensor<f32>, tensor<i64>, tensor<f32>) -> tensor<8x40xf32>
    %5 = kiln.iota dim = 1 : tensor<8x40xi64>
    %6 = kiln.reshape %arg0 : tensor<8xi64> -> tensor<8x1xi64>
    %7 = kiln.broadcast_in_dim %6, dims = [0, 1] : tensor<8x1xi64> -> tensor<8x40xi64>
    %8 = kiln.cmp  eq, %5, %7 : tensor<8x40xi64>
    %9 = kiln.sub %arg1, %2 : tensor<8x40xf32>
    %10 = kiln.exp %9 : tensor<8x40xf32>
    %11 = kiln.reduce_sum %10, dims = [1] : tensor<8x40xf32> -> tensor<8xf32>
    %12 = kiln.reshape %11 : tensor<8xf32> -> tensor<8x1xf32>
    %13 = kiln.broadcast_in_dim %12, dims = [0, 1] : tensor<8x1xf32> -> tensor<8x40xf32>
    %14 = kiln.log %13 : tensor<8x40xf32>
    %15 = kiln.sub %9, %14 : tensor<8x40xf32>
    %16 = kiln.broadcast_in_dim %arg2, dims = [] : tensor<f32> -> tensor<8x40xf32>
    %17 = kiln.select %8, %15, %16 : tensor<8x40xi1>, tensor<8x40xf32>
    %18 = kiln.reduce_sum %17, dims = [1] : tensor<8x40xf32> -> tensor<8xf32>
    %19 = kiln.neg %18 : tensor<8xf32>
    %20 = kiln.broadcast_in_dim %arg3, dims = [] : tensor<i64> -> tensor<8xi64>
    %21 = kiln.cmp  ne, %arg0, %20 : tensor<8xi64>
    %22 = kiln.convert %21 : tensor<8xi1> -> tensor<8xf32>
    %23 = kiln.mul %19, %22 : tensor<8xf32>
    %24 = kiln.reduce_sum %23, dims = [0] : tensor<8xf32> -> tensor<f32>
    %25 = kiln.reduce_sum %22, dims = [0] : tensor<8xf32> -> tensor<f32>
    %26 = kiln.div %24, %25 : tensor<f32>
    return %4, %26 : tensor<8x40xf32>, tensor<f32>
  }
  func.func private @vjp_callee_b7b01e5eaa1cc38a(%arg0: tensor<8xi64>, %arg1: tensor<8x40xf32>, %arg2: tensor<8x40xf32>, %arg3: tensor<f32>, %arg4: tensor<i64>) -> tensor<f32> {
    %0 = kiln.iota dim = 1 : tensor<8x40xi64>
    %1 = kiln.reshape %arg0 : tensor<8xi64> -> tensor<8x1xi64>
    %2 = kiln.broadcast_in_dim %1, dims = [0, 1] : tensor<8x1xi64> -> tensor<8x40xi64>
    %3 = kiln.cmp  eq, %0, %2 : tensor<8x40xi64>
    %4 = kiln.sub %arg1, %arg2 : tensor<8x40xf32>
    %5 = kiln.exp %4 : tensor<8x40xf32>
    %6 = kiln.reduce_sum %5, dims = [1] : tensor<8x40xf32> -> tensor<8xf32>
    %7 = kiln.reshape %6 : tensor<8xf32> -> tensor<8x1xf32>
    %8 = kiln.broadcast_in_dim %7, dims = [0, 1] : tensor<8x1xf32> -> tensor<8x40xf32>
    %9 = kiln.log %8 : tensor<8x40xf32>
    %10 = kiln.sub %4, %9 : tensor<8x40xf32>
    %11 = kiln.broadcast_in_dim %arg3, dims = [] : tensor<f32> -> tensor<8x40xf32>
    %12 = kiln.select %3, %10, %11 : tensor<8x40xi1>, tensor<8x40xf32>
    %13 = kiln.reduce_sum %12, dims = [1] : tensor<8x40xf32> -> tensor<8xf32>
    %14 = kiln.neg %13 : tensor<8xf32>
    %15 = kiln.broadcast_in_dim %arg4, dims = [] : tensor<i64> -> tensor<8xi64>
    %16 = kiln.cmp  ne, %arg0, %15 : tensor<8xi64>
    %17 = kiln.convert %16 : tensor<8xi1> -> tensor<8xf32>
    %18 = kiln.mul %14, %17 : tensor<8xf32>
    %19 = kiln.reduce_sum %18, dims = [0] : tensor<8xf32> -> tensor<f32>
    %20 = kiln.reduce_sum %17, dims = [0] : tensor<8xf32> -> tensor<f32>
    %21 = kiln.div %19, %20 : tensor<f32>
    return %21 : tensor<f32>
  }
}
