//===- GpuPipeline.cpp - the -kiln-gpu-pipeline ---------------------------===//

#include "kiln/Codegen/Common/Passes.h"
#include "kiln/Codegen/GPU/Passes.h"
#include "kiln/Pipelines/Pipelines.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void kiln::buildKilnGpuPipeline(OpPassManager &pm,
                                const KilnGpuPipelineOptions &options) {
  // Derivatives, fusion, linalg and buffers as on the CPU; matmuls are
  // runtime calls (cuBLAS, for the executor) or generated kernels.
  KilnCpuPipelineOptions shared;
  shared.prune = options.prune;
  shared.remat = options.remat;
  shared.rematMinBytes = options.rematMinBytes;
  // A kernel whose row values alias a buffer it writes is no GPU row
  // kernel (GpuRowKernels): in-place temporaries would split row kernels
  // into stages.
  shared.reuseBuffers = false;
  shared.kernelDedup = options.kernelDedup;
  shared.blas = options.blas;
  // cuBLAS's compute types honour a matmul's precision; f16/bf16 products
  // run there on tensor cores too.
  shared.tensorCoreCalls = true;
  shared.matmulPrecision = options.matmulPrecision;
  shared.autocast = options.autocast;
  // cuBLAS takes one batch stride: no kiln_rt_batch2_matmul_* there.
  shared.foldContractionLayouts = false;
  // A device memcpy copies one block; strided views are copied by kernels.
  shared.stridedCopyKernels = true;
  // Device memory is not the host's to loop over.
  shared.parallelScatters = true;
  shared.loopKernels = false;
  // Attention runs on -kiln-attention-to-gpu's blockwise kernels.
  shared.attentionKernels = false;
  shared.gpuAttention = true;
  buildKilnCpuTensorPipeline(pm, shared);
  buildKilnCpuBufferPipeline(pm, shared);

  // Each kernel a GPU kernel with a real thread mapping; launches in the
  // host functions.
  KilnMapKernelsToGpuOptions map;
  map.blockSize = options.blockSize;
  map.vectorWidth = options.vectorWidth;
  pm.addPass(createKilnMapKernelsToGpu(map));
  pm.addPass(createKilnAttentionToGpu());

  // The kernels: polynomial math (no libdevice calls), then NVVM and PTX.
  GpuNVVMAttachTargetOptions target;
  target.chip = options.chip;
  target.optLevel = 3;
  if (!options.libdevice.empty())
    target.linkLibs.push_back(options.libdevice);
  pm.addPass(createGpuNVVMAttachTarget(target));
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  kernels.addPass(createKilnLowerWarpOps());
  kernels.addPass(createKilnExpandMath());
  kernels.addPass(createLowerAffinePass());
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());
  kernels.addPass(createSCFToControlFlowPass());
  kernels.addPass(createConvertGpuOpsToNVVMOps());
  kernels.addPass(createKilnLowerNativeFloatOps());
  // What libdevice would resolve must be linked, not left to whether a CUDA
  // toolkit happens to be installed where this runs.
  if (options.libdevice.empty())
    kernels.addPass(createKilnCheckLibdeviceCalls());
  kernels.addPass(createReconcileUnrealizedCastsPass());
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = "isa";
  pm.addPass(createGpuModuleToBinaryPass(binary));
  // The same output from run to run.
  pm.addPass(createKilnDropBinaryTimings());
}
