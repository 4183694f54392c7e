// RUN: kiln-opt %s -split-input-file -kiln-map-kernels-to-gpu -verify-diagnostics
// RUN: not kiln-opt %s -split-input-file -kiln-map-kernels-to-gpu=block-size=2048 2>&1 | FileCheck %s --check-prefix=OPTION

// What -kiln-map-kernels-to-gpu refuses, one error each; the OPTION run
// gives an option out of range (an error on the module, which has no
// location to anchor an expected-error at).
// OPTION: kiln-map-kernels-to-gpu: block-size must be in [1, 1024], vector-width 1, 2 or 4 (at most 128 bits), max-blocks positive

#id = affine_map<(d0) -> (d0)>

func.func @scalar(%x: memref<8xf32>, %n: index) {
  call @kiln_kernel_0(%x, %n) : (memref<8xf32>, index) -> ()
  return
}
// expected-error @+1 {{a GPU kernel takes buffers, got 'index'}}
func.func private @kiln_kernel_0(%x: memref<8xf32>, %n: index) attributes {kiln.kernel} {
  linalg.generic {indexing_maps = [#id], iterator_types = ["parallel"]} outs(%x : memref<8xf32>) {
  ^bb0(%out: f32):
    linalg.yield %out : f32
  }
  return
}

// -----

#id = affine_map<(d0) -> (d0)>

func.func @loop(%x: memref<8xf32>, %y: memref<8xf32>) {
  call @kiln_kernel_0(%x, %y) : (memref<8xf32>, memref<8xf32>) -> ()
  return
}
func.func private @kiln_kernel_0(%x: memref<8xf32>, %y: memref<8xf32>) attributes {kiln.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  // expected-error @+1 {{this op cannot run in a GPU kernel}}
  scf.for %i = %c0 to %c8 step %c1 {
    %v = memref.load %x[%i] : memref<8xf32>
    memref.store %v, %y[%i] : memref<8xf32>
  }
  return
}

// -----

// A kernel whose linalg op is on tensors (written by hand: outlining
// refuses them) was not bufferized.
#id = affine_map<(d0) -> (d0)>

func.func @tensors(%x: memref<8xf32>, %y: memref<8xf32>) {
  call @kiln_kernel_0(%x, %y) : (memref<8xf32>, memref<8xf32>) -> ()
  return
}
// expected-error @+1 {{a kernel op on tensors cannot run on the GPU}}
func.func private @kiln_kernel_0(%x: memref<8xf32>, %y: memref<8xf32>) attributes {kiln.kernel} {
  %t = bufferization.to_tensor %x restrict : memref<8xf32> to tensor<8xf32>
  %e = tensor.empty() : tensor<8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%t : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<8xf32>
  bufferization.materialize_in_destination %r in writable %y : (tensor<8xf32>, memref<8xf32>) -> ()
  return
}
