//===- KernelBuilder.h - the body of one GPU kernel -------------*- C++ -*-===//
//
// The loop emitter of -kiln-map-kernels-to-gpu: each nest of a stage
// becomes a grid-stride loop over its parallel elements, with a vector path
// of 128-bit accesses where every operand allows it (KernelBuilder.cpp), or
// a warp or a block per output for row reductions, combined with shuffles
// and shared memory (GpuReductions.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_CONVERSION_GPUKERNELS_KERNELBUILDER_H
#define KILN_CONVERSION_GPUKERNELS_KERNELBUILDER_H

#include "StageSplitting.h"

#include "Codegen/Common/RowKernelAnalysis.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

#include <optional>
#include <utility>

namespace kiln::gpu_mapper {

/// Warps in the largest block (1024 threads).
constexpr int64_t kMaxWarpsPerBlock = 32;

/// Rows at least this long are reduced by a whole block (each of 256
/// threads then takes 4 or more elements); shorter ones by a warp.
constexpr int64_t kBlockReductionMinLength = 1024;

/// The shuffle-reduction form of `op`, if it has it: one output, its
/// reduction dims the trailing ones (a whole tensor's reduction has no
/// other) and at least a warp of elements, and a payload that combines
/// the accumulator once with an associative float op (sum, product, max,
/// min). Returns the combining op and its subgroup-reduction kind.
std::optional<std::pair<mlir::Operation *, mlir::gpu::AllReduceOperation>>
getShuffleReduction(mlir::linalg::LinalgOp op, llvm::ArrayRef<int64_t> ranges,
                    unsigned blockSize);

/// A column reduction: the inputs read along the reduction vary fastest in
/// memory along the kept (parallel) dims, whatever the loops' order, and
/// one output accumulates (indexed by the kept dims alone) from a payload
/// that combines its accumulator once with an associative f32 or f64 op;
/// other outputs are written at every step.
struct ColumnReduction {
  llvm::SmallVector<unsigned> parallel, reduction;
  mlir::OpOperand *accumulated = nullptr;
  mlir::Operation *combiner = nullptr;
  mlir::gpu::AllReduceOperation kind;
  /// The reduction's elements per output, and the outputs.
  int64_t rows = 1, columns = 1;
};

/// Column reductions narrower than this many outputs (at 256 blocks of a
/// warp's width, the device is full) and with 64 rows or more take the
/// column form; wider ones run a thread per output.
constexpr int64_t kColumnFormMaxColumns = int64_t{1} << 16;
constexpr int64_t kColumnFormMinRows = 64;

/// The column form of `op` (static `ranges`), where it has it and is worth
/// it: blocks of 64 threads or more, whole warps.
std::optional<ColumnReduction>
getColumnReduction(mlir::linalg::LinalgOp op, llvm::ArrayRef<int64_t> ranges,
                   unsigned blockSize);

/// The first of `op`'s trailing reduction dims (its number of loops where
/// the last is parallel).
unsigned getFirstReductionDim(mlir::linalg::LinalgOp op);
/// The elements each output of `op` reduces: the product of the trailing
/// reduction dims' `ranges`.
int64_t getReductionLength(mlir::linalg::LinalgOp op,
                           llvm::ArrayRef<int64_t> ranges);

/// The subgroup-reduction kind of a combining op (add, mul, max, min on
/// floats), if it has one.
std::optional<mlir::gpu::AllReduceOperation>
getCombinerKind(mlir::Operation *combiner);

/// The value a reduction of `kind` starts from.
double getReductionIdentity(mlir::gpu::AllReduceOperation kind);

/// The row kernel `kernel` is, when it can run as a warp or a block per
/// row (GpuRowKernels.cpp): every phase's outputs shuffle-reducible f32
/// accumulators, every nest over the row of the same trailing shape, what
/// a nest over the row writes read and written at the same element only,
/// and row values read after they are written, where no argument the
/// kernel writes may share elements with another (`aliases`).
std::optional<kiln::row_kernels::RowKernel>
getGpuRowKernel(mlir::func::FuncOp kernel, const ArgumentAliases &aliases,
                unsigned blockSize);

/// Builds the body of one GPU kernel.
class KernelBuilder {
public:
  KernelBuilder(mlir::OpBuilder &b, mlir::gpu::GPUFuncOp func,
                unsigned blockSize, unsigned vectorWidth)
      : b(b), func(func), loc(func.getLoc()), blockSize(blockSize),
        vectorWidth(vectorWidth) {}

  /// This thread's first linear index and the grid's stride.
  void emitThreadIndex() {
    mlir::Value block =
        mlir::gpu::BlockIdOp::create(b, loc, mlir::gpu::Dimension::x);
    mlir::Value blockDim =
        mlir::gpu::BlockDimOp::create(b, loc, mlir::gpu::Dimension::x);
    mlir::Value thread =
        mlir::gpu::ThreadIdOp::create(b, loc, mlir::gpu::Dimension::x);
    mlir::Value gridDim =
        mlir::gpu::GridDimOp::create(b, loc, mlir::gpu::Dimension::x);
    first = mlir::arith::AddIOp::create(
        b, loc, mlir::arith::MulIOp::create(b, loc, block, blockDim), thread);
    stride = mlir::arith::MulIOp::create(b, loc, gridDim, blockDim);
  }

  /// The loop of `nest`; `mapping` maps the kernel function's values (its
  /// arguments and constants) to the GPU kernel's. Returns whether it has a
  /// vector path. A nest with dynamic sizes reads them from its buffers
  /// (getDynamicWork), with the vector path where the innermost size is
  /// static; fails, with an error on the op, where its sizes cannot be read
  /// from the kernel's arguments.
  mlir::FailureOr<bool> emitNest(const Nest &nest, mlir::IRMapping &mapping);

  /// A row kernel (getGpuRowKernel) in this one launch: a warp, or for
  /// rows of kBlockReductionMinLength or more a block, per row.
  void emitRowKernel(const kiln::row_kernels::RowKernel &kernel,
                     mlir::IRMapping &mapping);

  /// The row loop of emitRowKernel, each thread taking `width` elements
  /// of the row at a time (vector loads and stores where `width` > 1).
  void emitRowLoop(const kiln::row_kernels::RowKernel &kernel,
                   mlir::IRMapping &mapping, int64_t width);

  /// Elements (or vector groups) the widest loop has: the grid to launch.
  int64_t getWork() const { return work; }

  /// A nest's parallel elements where some of its sizes are dynamic:
  /// `constant` times the sizes of the kernel arguments' dims in `dims`
  /// (argument number, dim), which the host reads at the launch.
  struct DynamicWork {
    int64_t constant = 1;
    llvm::SmallVector<std::pair<unsigned, unsigned>> dims;
  };
  /// The nests with dynamic sizes: the grid is the largest of these and
  /// getWork().
  llvm::ArrayRef<DynamicWork> getDynamicWork() const { return dynamicWork; }

private:
  mlir::Value index(int64_t value) {
    return mlir::arith::ConstantIndexOp::create(b, loc, value);
  }
  /// The loop ivs of linear index `linear` over `dims` (row-major).
  void delinearize(mlir::Value linear, llvm::ArrayRef<int64_t> dims,
                   llvm::ArrayRef<mlir::OpFoldResult> ranges,
                   llvm::SmallVectorImpl<mlir::Value> &ivs);
  void delinearize(mlir::Value linear, llvm::ArrayRef<int64_t> dims,
                   llvm::ArrayRef<int64_t> ranges,
                   llvm::SmallVectorImpl<mlir::Value> &ivs);
  mlir::Value materialize(mlir::OpFoldResult size);
  /// `op`'s loop ranges: constants where static, else read (memref.dim)
  /// from an operand the dim indexes whole; with the host's form of each
  /// nest's parallel elements in `work`. None when a dynamic dim has no
  /// such operand that is an argument of the kernel.
  std::optional<llvm::SmallVector<mlir::OpFoldResult>>
  getDynamicRanges(mlir::linalg::LinalgOp op, DynamicWork &work);
  /// The indices of `map` at `ivs`.
  llvm::SmallVector<mlir::Value> applyMap(mlir::AffineMap map,
                                          llvm::ArrayRef<mlir::Value> ivs);
  /// Whether `operand` of `op` allows the vector path: f32, indexed by the
  /// innermost loop dim as its last index alone, with unit stride and the
  /// other strides multiples of the vector width, or not by it at all (one
  /// scalar for each group of lanes); scalars as inputs.
  bool isVectorizableOperand(mlir::linalg::LinalgOp op,
                             mlir::OpOperand &operand);
  /// Whether the vector path fits `op`.
  bool canVectorize(mlir::linalg::LinalgOp op, llvm::ArrayRef<int64_t> ranges);
  /// Whether operand `operand` of `op` is read or written along the
  /// innermost loop dim (contiguously; else it is the same for the group).
  bool isContiguous(mlir::linalg::LinalgOp op, mlir::OpOperand &operand);
  /// Whether every buffer `op` accesses contiguously is aligned for vectors.
  mlir::Value emitAlignmentCheck(mlir::linalg::LinalgOp op,
                                 mlir::IRMapping &mapping);
  void emitScalarLoop(const Nest &nest,
                      llvm::ArrayRef<mlir::OpFoldResult> ranges,
                      mlir::IRMapping &mapping);
  void emitVectorLoop(const Nest &nest,
                      llvm::ArrayRef<mlir::OpFoldResult> ranges,
                      mlir::IRMapping &mapping);
  /// The vector loop where every contiguous buffer is aligned for it, the
  /// scalar loop where not.
  void emitVectorBranch(const Nest &nest,
                        llvm::ArrayRef<mlir::OpFoldResult> ranges,
                        mlir::IRMapping &mapping);
  /// The unit (a warp, or `perBlock` a block) that takes one output or row
  /// at a time, grid-striding, and this thread's place in it. A unit's
  /// threads take the same outputs, so all of them reach its shuffles and
  /// barriers.
  struct ReductionUnit {
    mlir::Value unit, units, member, size;
  };
  ReductionUnit emitReductionUnit(bool perBlock);
  /// One warp (or, `perBlock`, one block) per output: the lanes stride
  /// over the reduction dims (flattened, the innermost fastest) and
  /// combine with a subgroup reduction (shuffles on the GPU); a block's
  /// warps then combine through shared memory.
  /// In a split reduction's parts phase (Nest::Phase::Parts), a block per
  /// part of each output: its threads stride over the part of the
  /// flattened reduction dims, and thread 0 stores the block's total in
  /// the partials (the output and its fill are the total phase's).
  void emitShuffleReduction(const Nest &nest, llvm::ArrayRef<int64_t> ranges,
                            mlir::IRMapping &mapping, mlir::Operation *combiner,
                            mlir::gpu::AllReduceOperation kind, bool perBlock);
  /// A split reduction's total phase: a block per output, its threads
  /// striding over the output's partials; thread 0 combines the block's
  /// total with the value the output starts from and stores it.
  void emitSplitTotal(const Nest &nest, llvm::ArrayRef<int64_t> ranges,
                      mlir::IRMapping &mapping, mlir::Operation *combiner,
                      mlir::gpu::AllReduceOperation kind);
  /// `combiner` (a reduction's combining op) applied to `lhs` and `rhs`.
  mlir::Value emitCombine(mlir::Operation *combiner, mlir::Value lhs,
                          mlir::Value rhs);
  /// The value the output of a reduction nest starts from at `ivs`: its
  /// fill's value, or the output's element.
  mlir::Value emitStart(const Nest &nest, mlir::IRMapping &mapping,
                        llvm::ArrayRef<mlir::Value> ivs);
  /// Column reductions (the inputs read along the reduction vary fastest
  /// in memory along the kept dims; one accumulated output whose payload
  /// combines once by an associative float op), where a thread per output
  /// would leave the device idle: a
  /// block per tile of a warp's width of outputs, its warps splitting the
  /// rows (adjacent lanes read adjacent elements), their partial results
  /// combined in shared memory in a fixed order. Outputs written at every
  /// step are written as the rows are read. Returns whether `nest` took
  /// this form (nothing is emitted where not).
  /// In a split's parts phase (Nest::Phase::Parts, Nest::columns), a block
  /// per tile and part of the rows, storing its tile's totals in the
  /// partials ([part][column]) rather than the output.
  bool emitColumnReduction(const Nest &nest, llvm::ArrayRef<int64_t> ranges,
                           mlir::IRMapping &mapping);
  /// A split column reduction's total phase: a thread per output combining
  /// its column of the partials in order, then the value the output
  /// starts from.
  void emitColumnTotal(const Nest &nest, const ColumnReduction &column,
                       mlir::IRMapping &mapping);
  /// The total of the block's warps' `warpTotal`s, in every thread: each
  /// warp's lane 0 leaves its total in shared memory, and every warp
  /// reduces those. Barriers on both sides keep the slots of one output
  /// from the next.
  mlir::Value emitCrossWarpReduction(mlir::Value warpTotal,
                                     mlir::Value identity,
                                     mlir::gpu::AllReduceOperation kind);
  /// The kernel's shared memory for cross-warp reductions: one f32 slot per
  /// warp of the largest block.
  mlir::Value getWarpSlots();
  /// `op`'s inputs (memrefs) at loop ivs `ivs`.
  llvm::SmallVector<mlir::Value> loadInputs(mlir::linalg::LinalgOp op,
                                            mlir::IRMapping &mapping,
                                            llvm::ArrayRef<mlir::Value> ivs);
  /// Clones the payload of `op` with `args` for its block arguments and
  /// `ivs` (the loop indices, where the caller has them) for its
  /// linalg.index ops; returns the yielded values.
  llvm::SmallVector<mlir::Value>
  emitPayload(mlir::linalg::LinalgOp op, llvm::ArrayRef<mlir::Value> args,
              mlir::IRMapping &mapping, llvm::ArrayRef<mlir::Value> ivs = {});

  mlir::OpBuilder &b;
  mlir::gpu::GPUFuncOp func;
  mlir::Location loc;
  unsigned blockSize, vectorWidth;
  mlir::Value first, stride;
  mlir::Value warpSlots;
  int64_t work = 0;
  llvm::SmallVector<DynamicWork> dynamicWork;
};

} // namespace kiln::gpu_mapper

#endif // KILN_CONVERSION_GPUKERNELS_KERNELBUILDER_H
