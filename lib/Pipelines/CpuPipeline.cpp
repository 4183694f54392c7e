//===- CpuPipeline.cpp - the -kiln-cpu-pipeline ---------------------------===//

#include "kiln/Codegen/CPU/Passes.h"
#include "kiln/Codegen/Common/Passes.h"
#include "kiln/Codegen/GPU/Passes.h"
#include "kiln/Conversion/Passes.h"
#include "kiln/Dialect/Kiln/Transforms/Passes.h"
#include "kiln/Pipelines/Pipelines.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void kiln::buildKilnCpuPipeline(OpPassManager &pm,
                                const KilnCpuPipelineOptions &options) {
  buildKilnCpuTensorPipeline(pm, options);
  buildKilnCpuCodegenPipeline(pm, options);
}

void kiln::buildKilnCpuTensorPipeline(OpPassManager &pm,
                                      const KilnCpuPipelineOptions &options) {
  // kiln level: attention recognized in the forward, so that its
  // derivative is attention_grad; derivatives, folders and patterns, then
  // linalg on tensors.
  if (options.fuseAttention)
    pm.addPass(createKilnFuseAttention());
  KilnAutodiffOptions autodiff;
  autodiff.prune = options.prune;
  autodiff.remat = options.remat;
  autodiff.rematMinBytes = options.rematMinBytes;
  pm.addPass(createKilnAutodiff(autodiff));
  // After the derivation: a gradient's products follow the settings too.
  if (!options.autocast.empty()) {
    KilnAutocastOptions autocast;
    autocast.dtype = options.autocast;
    pm.addPass(createKilnAutocast(autocast));
  }
  if (options.matmulPrecision != MatmulPrecision::highest) {
    KilnSetMatmulPrecisionOptions precision;
    precision.precision = options.matmulPrecision;
    pm.addPass(createKilnSetMatmulPrecision(precision));
  }
  // Without the runtime's blockwise kernels (the GPU today), both attention
  // ops become matmuls and a softmax, which CSE shares between the forward
  // and the derivative's recomputation.
  if (options.fuseAttention && !options.attentionKernels &&
      !options.gpuAttention)
    pm.addPass(createKilnDecomposeAttention());
  // Calls would be fusion and buffer boundaries (a callee's results are
  // copied into the caller's): inline them all, then drop the callees.
  pm.addPass(createInlinerPass());
  pm.addPass(createSymbolDCEPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createKilnFuse());
  KilnLowerToLinalgOptions lowering;
  lowering.blas = options.blas;
  lowering.tensorCoreCalls = options.tensorCoreCalls;
  lowering.parallelScatters = options.parallelScatters;
  lowering.gpuAttention = options.gpuAttention;
  pm.addPass(createKilnLowerToLinalg(lowering));
  pm.addNestedPass<func::FuncOp>(createKilnFuseLinalgElementwise());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // After the canonicalizer has merged each reshape's collapse and expand.
  if (options.blas && options.foldContractionLayouts) {
    pm.addNestedPass<func::FuncOp>(createKilnFoldContractionLayouts());
    pm.addPass(createCanonicalizerPass());
  }
}

void kiln::buildKilnCpuCodegenPipeline(OpPassManager &pm,
                                       const KilnCpuPipelineOptions &options) {
  buildKilnCpuBufferPipeline(pm, options);
  buildKilnCpuLoweringPipeline(pm, options);
}

void kiln::buildKilnCpuBufferPipeline(OpPassManager &pm,
                                      const KilnCpuPipelineOptions &options) {
  // Buffers: concat destinations are allocated once and written in place;
  // results become caller-allocated out-params, one buffer each.
  // Copy-before-write skips one-shot's alias analysis, which is quadratic
  // in a long straight-line function (1.5 s for a 100-step LSTM, fwd+bwd);
  // -kiln-elide-copies then forwards each copy out of a buffer that dies
  // there (an in-place write the analysis would have found), in linear time.
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  bufferize.copyBeforeWrite = true;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  // CSE merges the subviews of each concat destination so that the
  // canonicalizer drops the self-copies bufferization leaves behind.
  pm.addPass(createCSEPass());
  pm.addPass(createCanonicalizerPass());
  pm.addNestedPass<func::FuncOp>(createKilnElideCopies());
  pm.addNestedPass<func::FuncOp>(createKilnDistinctReturns());
  pm.addPass(createKilnLinalgToRuntimeCalls());
  bufferization::BufferResultsToOutParamsPassOptions outParams;
  outParams.hoistStaticAllocs = true;
  outParams.modifyPublicFunctions = true;
  pm.addPass(bufferization::createBufferResultsToOutParamsPass(outParams));
  pm.addPass(createCanonicalizerPass());
  // One function per distinct kernel (a group's loop nests together);
  // calls in the entry. Before deallocation, whose frees would otherwise
  // sit between the nests of one kernel.
  if (options.stridedCopyKernels)
    pm.addPass(createKilnStridedCopiesToLinalg());
  KilnOutlineKernelsOptions outline;
  outline.dedup = options.kernelDedup;
  outline.loops = options.loopKernels;
  pm.addPass(createKilnOutlineKernels(outline));
  pm.addPass(createKilnDeallocateBuffers());
  if (options.reuseBuffers) {
    KilnReuseBuffersOptions reuse;
    reuse.reductions = true;
    pm.addPass(createKilnReuseBuffers(reuse));
  }
}

void kiln::buildKilnCpuLoweringPipeline(OpPassManager &pm,
                                        const KilnCpuPipelineOptions &options) {
  // Loops: row kernels row by row, parallel loops over both cores, math as
  // polynomials.
  pm.addNestedPass<func::FuncOp>(createKilnLowerRowKernels());
  pm.addNestedPass<func::FuncOp>(createKilnLowerColumnReductions());
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToParallelLoopsPass());
  KilnSerializeInnerLoopsOptions serialize;
  serialize.minParallelIterations =
      options.parallel ? options.minParallelIterations.getValue() : 0;
  pm.addNestedPass<func::FuncOp>(createKilnSerializeInnerLoops(serialize));
  if (options.expandMath)
    pm.addNestedPass<func::FuncOp>(createKilnExpandMath());
  pm.addPass(createCanonicalizerPass());
  if (options.parallel)
    pm.addPass(createConvertSCFToOpenMPPass());

  // LLVM dialect. memref goes before scf-to-cf: OpenMP reductions leave
  // memref.alloca_scope regions that must still hold structured loops.
  // expand-strided-metadata computes offsets with affine.apply.
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  // Vector loads and stores (GPU kernels emulated on the CPU use them).
  pm.addPass(createConvertVectorToLLVMPass());
  // Buffers come from the runtime's cache (kiln_rt.h), through MLIR's
  // generic allocation functions.
  FinalizeMemRefToLLVMConversionPassOptions memrefToLLVM;
  memrefToLLVM.useGenericFunctions = true;
  // The cache aligns its blocks itself: no pointer rounding in the host.
  memrefToLLVM.useAlignedAlloc = true;
  pm.addPass(createFinalizeMemRefToLLVMConversionPass(memrefToLLVM));
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertMathToLLVMPass());
  // What has neither an LLVM intrinsic nor an expansion (f64 erf) calls
  // libm.
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertOpenMPToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createKilnAttachLoopAnnotations());
  pm.addPass(createReconcileUnrealizedCastsPass());
  // Kernels take one pointer per buffer rather than a descriptor.
  pm.addPass(createKilnCompactKernelAbi());
  // The host functions are optnone, so LLVM would not fold the descriptor
  // plumbing (insertvalue chains read back by extractvalue); folded here,
  // the fast instruction selector takes all of it.
  pm.addPass(createCanonicalizerPass());
}

void kiln::registerKilnPipelines() {
  PassPipelineRegistration<KilnCpuPipelineOptions>(
      "kiln-cpu-pipeline",
      "Lower kiln to the LLVM dialect for the host CPU (OpenMP loops, "
      "polynomial math, results as out-params)",
      buildKilnCpuPipeline);
  PassPipelineRegistration<KilnGpuPipelineOptions>(
      "kiln-gpu-pipeline",
      "Lower kiln to host functions that launch GPU kernels, the kernels "
      "compiled to PTX by LLVM's NVPTX backend",
      buildKilnGpuPipeline);
}
