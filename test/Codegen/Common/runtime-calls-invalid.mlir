// RUN: kiln-opt %s -split-input-file -kiln-linalg-to-runtime-calls -verify-diagnostics

// -kiln-linalg-to-runtime-calls passes buffers: a marked op on tensors is
// refused, and so is a call whose existing declaration has another type.

#a = affine_map<(i, j, k) -> (i, k)>
#b = affine_map<(i, j, k) -> (k, j)>
#c = affine_map<(i, j, k) -> (i, j)>
func.func @on_tensors(%x: tensor<4x8xf32>, %y: tensor<8x2xf32>, %z: tensor<4x2xf32>) -> tensor<4x2xf32> {
  // expected-error @+1 {{runtime call on tensors: run after bufferization}}
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"], library_call = "kiln_rt_matmul_f32_nn"} ins(%x, %y : tensor<4x8xf32>, tensor<8x2xf32>) outs(%z : tensor<4x2xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<4x2xf32>
  return %r : tensor<4x2xf32>
}

// -----

#a = affine_map<(i, j, k) -> (i, k)>
#b = affine_map<(i, j, k) -> (k, j)>
#c = affine_map<(i, j, k) -> (i, j)>
func.func private @kiln_rt_matmul_f32_nn(memref<?xf32>)
func.func @mismatch(%x: memref<4x8xf32>, %y: memref<8x2xf32>, %z: memref<4x2xf32>) {
  // expected-error @+1 {{runtime call @kiln_rt_matmul_f32_nn does not match its declaration}}
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"], library_call = "kiln_rt_matmul_f32_nn"} ins(%x, %y : memref<4x8xf32>, memref<8x2xf32>) outs(%z : memref<4x2xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A matmul map that reads a loop the operand has no place for (B reading
// m) has no view in the entry point's order.
#a = affine_map<(i, j, k) -> (i, k)>
#b = affine_map<(i, j, k) -> (k, i)>
#c = affine_map<(i, j, k) -> (i, j)>
func.func @bad_map(%x: memref<4x8xf32>, %y: memref<8x4xf32>, %z: memref<4x4xf32>) {
  // expected-error @+1 {{matmul runtime call with unexpected indexing maps}}
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"], library_call = "kiln_rt_matmul_f32_nn"} ins(%x, %y : memref<4x8xf32>, memref<8x4xf32>) outs(%z : memref<4x4xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  return
}
