//===- Pipelines.h - kiln pass pipelines and registration -------*- C++ -*-===//

#ifndef KILN_PIPELINES_PIPELINES_H
#define KILN_PIPELINES_PIPELINES_H

#include "kiln/Dialect/Kiln/IR/KilnDialect.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace kiln {

/// The pipelines' `matmul-precision` option: its description and values.
inline llvm::cl::desc getMatmulPrecisionDescription() {
  return llvm::cl::desc("what f32 matmuls without a precision of their own "
                        "may compute in (torch.set_float32_matmul_precision; "
                        "-kiln-set-matmul-precision)");
}
inline auto getMatmulPrecisionValues() {
  return llvm::cl::values(
      clEnumValN(MatmulPrecision::highest, "highest", "f32"),
      clEnumValN(MatmulPrecision::high, "high", "TF32 allowed"),
      clEnumValN(MatmulPrecision::medium, "medium", "bf16 allowed"));
}

struct KilnCpuPipelineOptions
    : public mlir::PassPipelineOptions<KilnCpuPipelineOptions> {
  Option<bool> parallel{*this, "parallel",
                        llvm::cl::desc("run parallel loops with OpenMP"),
                        llvm::cl::init(true)};
  Option<int64_t> minParallelIterations{
      *this, "min-parallel-iterations",
      llvm::cl::desc("loop nests with fewer static iterations run on one "
                     "thread (0: every parallel loop uses OpenMP)"),
      llvm::cl::init(8192)};
  Option<bool> prune{*this, "prune",
                     llvm::cl::desc("dead-edge elimination in -kiln-autodiff "
                                    "(false: the naive derivation)"),
                     llvm::cl::init(true)};
  Option<std::string> remat{
      *this, "remat",
      llvm::cl::desc("none, or auto: -kiln-autodiff recomputes cheap "
                     "elementwise values in the derivative when that keeps "
                     "fewer bytes"),
      llvm::cl::init("none")};
  Option<int64_t> rematMinBytes{
      *this, "remat-min-bytes",
      llvm::cl::desc("remat=auto: the smallest value recomputed (a "
                     "recomputation in a kernel of its own saves 16 times "
                     "as much)"),
      llvm::cl::init(65536)};
  Option<bool> reuseBuffers{
      *this, "reuse-buffers",
      llvm::cl::desc("let a kernel write a new temporary into one it reads "
                     "for the last time, element by element, reductions "
                     "included (-kiln-reuse-buffers reductions=true; the "
                     "CPU's loops run a kernel's body once per point)"),
      llvm::cl::init(true)};
  Option<bool> blas{*this, "blas",
                    llvm::cl::desc("call the runtime's BLAS for matmuls "
                                   "(f16/bf16 operands widened to f32)"),
                    llvm::cl::init(false)};
  Option<bool> tensorCoreCalls{
      *this, "tensor-core-calls",
      llvm::cl::desc("with blas, products whose runtime honours a precision "
                     "(the GPU pipeline's cuBLAS; false: the CPU computes "
                     "every f32 product in f32)"),
      llvm::cl::init(false)};
  Option<MatmulPrecision> matmulPrecision{
      *this, "matmul-precision", getMatmulPrecisionDescription(),
      llvm::cl::init(MatmulPrecision::highest), getMatmulPrecisionValues()};
  Option<std::string> autocast{
      *this, "autocast",
      llvm::cl::desc("run f32 matmuls in bf16 or f16, as torch.autocast "
                     "(-kiln-autocast; empty: in f32)"),
      llvm::cl::init("")};
  Option<bool> kernelDedup{
      *this, "kernel-dedup",
      llvm::cl::desc("compile equal kernels once (false: for measuring)"),
      llvm::cl::init(true)};
  Option<bool> expandMath{
      *this, "expand-math",
      llvm::cl::desc("expand transcendentals into polynomials"),
      llvm::cl::init(true)};
  Option<bool> parallelScatters{
      *this, "parallel-scatters",
      llvm::cl::desc("kiln.scatter_add as parallel kernels (the GPU "
                     "pipeline's; false: one in-place add per index)"),
      llvm::cl::init(false)};
  Option<bool> loopKernels{
      *this, "loop-kernels",
      llvm::cl::desc("a host loop over loop nests (kiln.scatter_add's "
                     "ordered adds) runs as one kernel, so that the entry "
                     "is a host program (the CPU's; a GPU kernel cannot "
                     "hold it)"),
      llvm::cl::init(true)};
  Option<bool> stridedCopyKernels{
      *this, "strided-copy-kernels",
      llvm::cl::desc("copies between strided views as kernels (the GPU "
                     "pipeline's; false: host copies)"),
      llvm::cl::init(false)};
  Option<bool> fuseAttention{
      *this, "fuse-attention",
      llvm::cl::desc("form kiln.attention where a softmax row feeds only a "
                     "product (-kiln-fuse-attention)"),
      llvm::cl::init(true)};
  Option<bool> attentionKernels{
      *this, "attention-kernels",
      llvm::cl::desc("run kiln.attention and its gradient on the CPU "
                     "runtime's blockwise kernels (false: decompose them "
                     "into matmuls and a softmax)"),
      llvm::cl::init(true)};
  Option<bool> gpuAttention{
      *this, "gpu-attention",
      llvm::cl::desc("lower kiln.attention and its gradient for "
                     "-kiln-attention-to-gpu's blockwise GPU kernels (the GPU "
                     "pipeline and the emulated GPU)"),
      llvm::cl::init(false)};
  Option<bool> foldContractionLayouts{
      *this, "fold-contraction-layouts",
      llvm::cl::desc("fold transposes and batch reshapes around BLAS "
                     "contractions into their strides (needs the CPU "
                     "runtime's kiln_rt_batch2_matmul_*)"),
      llvm::cl::init(true)};
};

struct KilnGpuPipelineOptions
    : public mlir::PassPipelineOptions<KilnGpuPipelineOptions> {
  Option<std::string> chip{*this, "chip",
                           llvm::cl::desc("the NVIDIA GPU to generate PTX for"),
                           llvm::cl::init("sm_80")};
  Option<unsigned> blockSize{*this, "block-size",
                             llvm::cl::desc("threads per block"),
                             llvm::cl::init(256)};
  Option<unsigned> vectorWidth{
      *this, "vector-width",
      llvm::cl::desc("f32 elements per thread and step on the vector path"),
      llvm::cl::init(4)};
  Option<bool> blas{*this, "blas",
                    llvm::cl::desc("matmuls as runtime calls (cuBLAS); "
                                   "false: generated kernels"),
                    llvm::cl::init(false)};
  Option<MatmulPrecision> matmulPrecision{
      *this, "matmul-precision", getMatmulPrecisionDescription(),
      llvm::cl::init(MatmulPrecision::highest), getMatmulPrecisionValues()};
  Option<std::string> autocast{
      *this, "autocast",
      llvm::cl::desc("run f32 matmuls in bf16 or f16, as torch.autocast "
                     "(-kiln-autocast; empty: in f32)"),
      llvm::cl::init("")};
  Option<bool> prune{*this, "prune",
                     llvm::cl::desc("dead-edge elimination in -kiln-autodiff "
                                    "(false: the naive derivation)"),
                     llvm::cl::init(true)};
  Option<std::string> remat{
      *this, "remat",
      llvm::cl::desc("none, or auto: -kiln-autodiff recomputes cheap "
                     "elementwise values in the derivative when that keeps "
                     "fewer bytes"),
      llvm::cl::init("none")};
  Option<int64_t> rematMinBytes{
      *this, "remat-min-bytes",
      llvm::cl::desc("remat=auto: the smallest value recomputed (a "
                     "recomputation in a kernel of its own saves 16 times "
                     "as much)"),
      llvm::cl::init(65536)};
  Option<bool> kernelDedup{
      *this, "kernel-dedup",
      llvm::cl::desc("compile equal kernels once (false: for measuring)"),
      llvm::cl::init(true)};
  Option<std::string> libdevice{
      *this, "libdevice",
      llvm::cl::desc("libdevice.10.bc to link, for f64 transcendentals "
                     "(without it, kernels that need it are refused)"),
      llvm::cl::init("")};
};

/// From kiln ops to host functions of buffers and gpu.launch_func, and a
/// gpu.binary of PTX (LLVM's NVPTX backend: no CUDA toolkit): the tensor
/// and buffer stages of the CPU pipeline, -kiln-map-kernels-to-gpu, and
/// the kernels through NVVM.
void buildKilnGpuPipeline(mlir::OpPassManager &pm,
                          const KilnGpuPipelineOptions &options);

/// From kiln ops (vjps expanded) to the LLVM dialect for the host: the
/// tensor stage, then the codegen stage.
void buildKilnCpuPipeline(mlir::OpPassManager &pm,
                          const KilnCpuPipelineOptions &options);

/// Derivatives, kiln clean-ups, lowering to linalg on tensors and
/// elementwise fusion. Each remaining linalg op is one loop nest (kernel)
/// or one runtime call.
void buildKilnCpuTensorPipeline(mlir::OpPassManager &pm,
                                const KilnCpuPipelineOptions &options);

/// The buffer stage, then the lowering stage.
void buildKilnCpuCodegenPipeline(mlir::OpPassManager &pm,
                                 const KilnCpuPipelineOptions &options);

/// Bufferization with results as out-params, kernels outlined (one
/// function per distinct kernel, calls in the host functions) and buffers
/// freed: the host functions are straight-line memref code.
void buildKilnCpuBufferPipeline(mlir::OpPassManager &pm,
                                const KilnCpuPipelineOptions &options);

/// Parallel loops on OpenMP, polynomial math, then the LLVM dialect, with
/// one pointer per kernel buffer.
void buildKilnCpuLoweringPipeline(mlir::OpPassManager &pm,
                                  const KilnCpuPipelineOptions &options);

/// Registers `-kiln-cpu-pipeline`.
void registerKilnPipelines();

/// Every kiln pass, every upstream pass and the pipelines.
void registerAllKilnPasses();

/// The kiln dialect, every upstream dialect and their interface models.
void registerAllKilnDialects(mlir::DialectRegistry &registry);

/// The LLVM IR translations the JIT needs (builtin, LLVM, OpenMP).
void registerKilnTranslations(mlir::DialectRegistry &registry);

} // namespace kiln

#endif // KILN_PIPELINES_PIPELINES_H
