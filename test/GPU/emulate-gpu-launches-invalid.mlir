// RUN: kiln-opt %s -split-input-file -kiln-emulate-gpu-launches -verify-diagnostics

// What -kiln-emulate-gpu-launches cannot run on the CPU, one error each.

module attributes {gpu.container_module} {
  func.func @f(%out: memref<64xf32>, %n: index) {
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{only launches of 1-D grids and constant blocks}}
    gpu.launch_func @kiln_gpu::@kernel blocks in (%c1, %c1, %c1) threads in (%n, %c1, %c1) args(%out : memref<64xf32>)
    return
  }
  gpu.module @kiln_gpu {
    gpu.func @kernel(%out: memref<64xf32>) kernel {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  func.func @f(%out: memref<64xf32>) {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    gpu.launch_func @kiln_gpu::@kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%out : memref<64xf32>)
    // expected-error @+1 {{a kernel launched with two shapes cannot be emulated}}
    gpu.launch_func @kiln_gpu::@kernel blocks in (%c2, %c1, %c1) threads in (%c1, %c1, %c1) args(%out : memref<64xf32>)
    return
  }
  gpu.module @kiln_gpu {
    gpu.func @kernel(%out: memref<64xf32>) kernel {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  func.func @f(%out: memref<64xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kiln_gpu::@kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%out : memref<64xf32>)
    return
  }
  gpu.module @kiln_gpu {
    // expected-error @+1 {{private attributions cannot be emulated}}
    gpu.func @kernel(%out: memref<64xf32>) private(%p: memref<4xf32, #gpu.address_space<private>>) kernel {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  func.func @f(%out: memref<64xf32>, %x: f32) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kiln_gpu::@kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%out : memref<64xf32>, %x : f32)
    return
  }
  gpu.module @kiln_gpu {
    gpu.func @kernel(%out: memref<64xf32>, %x: f32) kernel {
      %c1 = arith.constant 1 : i32
      %c32 = arith.constant 32 : i32
      // expected-error @+1 {{this GPU op cannot be emulated}}
      %s, %v = gpu.shuffle xor %x, %c1, %c32 : f32
      gpu.return
    }
  }
}

// -----

// A kernel with control flow between blocks (the emulation clones one
// block into its thread loop).
module attributes {gpu.container_module} {
  func.func @f(%out: memref<64xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kiln_gpu::@kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%out : memref<64xf32>)
    return
  }
  gpu.module @kiln_gpu {
    // expected-error @+1 {{only single-block GPU kernels can be emulated}}
    gpu.func @kernel(%out: memref<64xf32>) kernel {
      cf.br ^bb1
    ^bb1:
      gpu.return
    }
  }
}

// -----

// Shared memory of dynamic size: the thread's own stack buffer needs a
// static one.
module attributes {gpu.container_module} {
  func.func @f(%out: memref<64xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kiln_gpu::@kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%out : memref<64xf32>)
    return
  }
  gpu.module @kiln_gpu {
    // expected-error @+1 {{only static shared buffers can be emulated}}
    gpu.func @kernel(%out: memref<64xf32>) workgroup(%w : memref<?xf32, #gpu.address_space<workgroup>>) kernel {
      gpu.return
    }
  }
}

// -----

// Kernels already compiled to a binary: no gpu.func to run.
module attributes {gpu.container_module} {
  func.func @f(%out: memref<64xf32>) {
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{the launched kernel is not in the module}}
    gpu.launch_func @kiln_gpu::@kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%out : memref<64xf32>)
    return
  }
  gpu.binary @kiln_gpu [#gpu.object<#nvvm.target, "">]
}
