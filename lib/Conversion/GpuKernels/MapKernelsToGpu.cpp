//===- MapKernelsToGpu.cpp - the -kiln-map-kernels-to-gpu pass ------------===//
//
// Outlined kernels (linalg ops on buffers) -> gpu.func with a grid-stride
// loop per op, a vector path of 128-bit accesses where every operand allows
// it, and gpu.launch_func at the call sites. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/Passes.h"
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/TypeSwitch.h"

#include <limits>

namespace kiln {
#define GEN_PASS_DEF_KILNMAPKERNELSTOGPU
#include "kiln/Conversion/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {

/// The name of the gpu.module that holds every kernel.
constexpr StringLiteral kGpuModuleName = "kiln_gpu";

/// Warps in the largest block (1024 threads).
constexpr int64_t kMaxWarpsPerBlock = 32;

/// Rows at least this long are reduced by a whole block (each of 256
/// threads then takes 4 or more elements); shorter ones by a warp.
constexpr int64_t kBlockReductionMinLength = 1024;

/// One loop of a GPU kernel: a linalg op, and the fill it absorbs (the
/// output its accumulator starts from).
struct Nest {
  linalg::LinalgOp op;
  linalg::FillOp fill;     // or null
  unsigned fillOutput = 0; // which output of `op` the fill initializes
};

/// The ops of a kernel that run in one launch.
using Stage = SmallVector<Nest>;

/// Whether `fill` initializes an output of the reduction `op`: the output's
/// accumulator can start at the fill value.
static std::optional<unsigned> getFilledOutput(linalg::FillOp fill,
                                               linalg::LinalgOp op) {
  if (op.getNumReductionLoops() == 0)
    return std::nullopt;
  Value filled = fill.getOutputs()[0];
  for (OpOperand *input : op.getDpsInputOperands())
    if (input->get() == filled)
      return std::nullopt;
  SmallVector<unsigned> reductionDims;
  op.getReductionDims(reductionDims);
  for (OpOperand &init : op.getDpsInitsMutable()) {
    AffineMap map = op.getMatchingIndexingMap(&init);
    if (init.get() != filled || !map.isProjectedPermutation())
      continue;
    // An output written at every reduction step does not accumulate.
    if (llvm::any_of(reductionDims,
                     [&](unsigned d) { return map.isFunctionOfDim(d); }))
      return std::nullopt;
    return init.getOperandNumber() - op.getNumDpsInputs();
  }
  return std::nullopt;
}

/// The buffers `op` reads (inputs, and inits whose value it uses).
static SmallVector<Value> getReadBuffers(linalg::LinalgOp op) {
  SmallVector<Value> reads;
  for (OpOperand *input : op.getDpsInputOperands())
    reads.push_back(input->get());
  for (OpOperand &init : op.getDpsInitsMutable())
    if (op.payloadUsesValueFromOperand(&init))
      reads.push_back(init.get());
  return reads;
}

/// A view as a box of its root buffer: the buffer it comes from (through
/// casts and subviews) and, where known, the index ranges of the root it
/// covers (subviews of unit steps and static offsets and sizes compose; the
/// root itself covers all of it).
struct Box {
  Value root;
  std::optional<SmallVector<int64_t>> offsets, sizes;
};

static Box getBox(Value value) {
  Box box;
  SmallVector<memref::SubViewOp> subviews; // from the view to the root
  bool known = true;
  while (Operation *def = value.getDefiningOp()) {
    if (auto cast = dyn_cast<memref::CastOp>(def)) {
      value = cast.getSource();
    } else if (auto subview = dyn_cast<memref::SubViewOp>(def)) {
      subviews.push_back(subview);
      value = subview.getSource();
    } else if (auto view = dyn_cast<ViewLikeOpInterface>(def)) {
      known = false; // a view of unknown extent
      value = view.getViewSource();
    } else {
      break;
    }
  }
  box.root = value;
  auto rootType = dyn_cast<MemRefType>(value.getType());
  if (!known || !rootType || !rootType.hasStaticShape())
    return box;
  SmallVector<int64_t> offsets(rootType.getRank(), 0);
  SmallVector<int64_t> sizes = llvm::to_vector(rootType.getShape());
  for (memref::SubViewOp subview : llvm::reverse(subviews)) {
    ArrayRef<int64_t> subOffsets = subview.getStaticOffsets(),
                      subSizes = subview.getStaticSizes(),
                      subStrides = subview.getStaticStrides();
    if (subview.getType().getRank() != rootType.getRank() ||
        llvm::any_of(subOffsets, ShapedType::isDynamic) ||
        llvm::any_of(subSizes, ShapedType::isDynamic) ||
        llvm::any_of(subStrides, [](int64_t s) { return s != 1; }))
      return box;
    for (int64_t d = 0; d < rootType.getRank(); ++d) {
      offsets[d] += subOffsets[d];
      sizes[d] = subSizes[d];
    }
  }
  box.offsets = std::move(offsets);
  box.sizes = std::move(sizes);
  return box;
}

/// Whether two boxes may share an element: the same root, unless they are
/// apart along some dim.
static bool mayOverlap(const Box &boxA, const Box &boxB) {
  if (boxA.root != boxB.root)
    return false;
  if (!boxA.offsets || !boxB.offsets)
    return true;
  for (size_t d = 0; d < boxA.offsets->size(); ++d) {
    int64_t startA = (*boxA.offsets)[d], endA = startA + (*boxA.sizes)[d];
    int64_t startB = (*boxB.offsets)[d], endB = startB + (*boxB.sizes)[d];
    if (endA <= startB || endB <= startA)
      return false;
  }
  return true;
}

/// Which arguments of a kernel may share elements at some call: the calls
/// pass views of one buffer that are not provably apart.
using ArgumentAliases = SmallVector<llvm::SmallBitVector>;

static ArgumentAliases getArgumentAliases(func::FuncOp kernel,
                                          ArrayRef<func::CallOp> calls) {
  unsigned n = kernel.getNumArguments();
  ArgumentAliases aliases(n, llvm::SmallBitVector(n));
  for (unsigned i = 0; i < n; ++i)
    aliases[i].set(i);
  for (func::CallOp call : calls)
    for (unsigned i = 0; i < n; ++i)
      for (unsigned j = i + 1; j < n; ++j)
        if (isa<MemRefType>(call.getOperand(i).getType()) &&
            (call.getOperand(i) == call.getOperand(j) ||
             mayOverlap(getBox(call.getOperand(i)),
                        getBox(call.getOperand(j))))) {
          aliases[i].set(j);
          aliases[j].set(i);
        }
  return aliases;
}

/// Splits a kernel's ops into stages: a new one starts where an op reads or
/// writes a buffer an earlier op of the stage wrote (a fill followed by the
/// reduction it initializes is one nest instead). Buffers are the same where
/// `aliases` says the kernel's arguments may share elements.
static FailureOr<SmallVector<Stage>>
splitIntoStages(func::FuncOp kernel, const ArgumentAliases &aliases) {
  SmallVector<Stage> stages(1);
  // Inside the kernel: its own views overlap as at a call; arguments as
  // the calls pass them.
  auto conflict = [&](Value a, Value b) {
    if (a == b)
      return true;
    Box boxA = getBox(a), boxB = getBox(b);
    auto argA = dyn_cast<BlockArgument>(boxA.root);
    auto argB = dyn_cast<BlockArgument>(boxB.root);
    if (argA && argB && argA != argB)
      return bool(aliases[argA.getArgNumber()][argB.getArgNumber()]);
    return mayOverlap(boxA, boxB);
  };
  // What the current stage wrote and read: a later op that touches what it
  // wrote, or writes what it read, must wait for the whole grid (another
  // launch).
  struct Accesses {
    SmallVector<Value> values;
    void insert(Value v) {
      if (!llvm::is_contained(values, v))
        values.push_back(v);
    }
    void clear() { values.clear(); }
  } written, read;
  auto touches = [&](const Accesses &accesses, Value buffer) {
    return llvm::any_of(accesses.values,
                        [&](Value v) { return conflict(v, buffer); });
  };
  SmallVector<linalg::LinalgOp> ops;
  for (Operation &op : kernel.getBody().front()) {
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
      if (!linalgOp.hasPureBufferSemantics())
        return kernel.emitError("a kernel op on tensors cannot run on the GPU");
      ops.push_back(linalgOp);
    } else if (op.getNumRegions() != 0) {
      return op.emitError("this op cannot run in a GPU kernel");
    }
  }
  for (size_t i = 0; i < ops.size(); ++i) {
    Nest nest{ops[i], nullptr, 0};
    if (auto fill = dyn_cast<linalg::FillOp>(ops[i].getOperation());
        fill && i + 1 < ops.size()) {
      if (std::optional<unsigned> output = getFilledOutput(fill, ops[i + 1])) {
        nest = Nest{ops[i + 1], fill, *output};
        ++i;
      }
    }
    bool dependent = false;
    SmallVector<Value> reads = getReadBuffers(nest.op);
    for (Value buffer : reads)
      dependent |= touches(written, buffer);
    for (Value init : nest.op.getDpsInits())
      dependent |= touches(written, init) || touches(read, init);
    if (dependent && !stages.back().empty()) {
      stages.emplace_back();
      written.clear();
      read.clear();
    }
    for (Value init : nest.op.getDpsInits())
      written.insert(init);
    for (Value buffer : reads)
      read.insert(buffer);
    stages.back().push_back(nest);
  }
  if (stages.back().empty())
    stages.pop_back();
  return stages;
}

/// Builds the body of one GPU kernel.
class KernelBuilder {
public:
  KernelBuilder(OpBuilder &b, gpu::GPUFuncOp func, unsigned blockSize,
                unsigned vectorWidth)
      : b(b), func(func), loc(func.getLoc()), blockSize(blockSize),
        vectorWidth(vectorWidth) {}

  /// This thread's first linear index and the grid's stride.
  void emitThreadIndex() {
    Value block = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
    Value blockDim = gpu::BlockDimOp::create(b, loc, gpu::Dimension::x);
    Value thread = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
    Value gridDim = gpu::GridDimOp::create(b, loc, gpu::Dimension::x);
    first = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, block, blockDim), thread);
    stride = arith::MulIOp::create(b, loc, gridDim, blockDim);
  }

  /// The loop of `nest`; `mapping` maps the kernel function's values (its
  /// arguments and constants) to the GPU kernel's. Returns whether it has a
  /// vector path.
  bool emitNest(const Nest &nest, IRMapping &mapping);

  /// Elements (or vector groups) the widest loop has: the grid to launch.
  int64_t getWork() const { return work; }

private:
  Value index(int64_t value) {
    return arith::ConstantIndexOp::create(b, loc, value);
  }
  /// The loop ivs of linear index `linear` over `dims` (row-major).
  void delinearize(Value linear, ArrayRef<int64_t> dims,
                   ArrayRef<int64_t> ranges, SmallVectorImpl<Value> &ivs);
  /// The indices of `map` at `ivs`.
  SmallVector<Value> applyMap(AffineMap map, ArrayRef<Value> ivs);
  /// Whether the vector path fits `op`.
  bool canVectorize(linalg::LinalgOp op, ArrayRef<int64_t> ranges);
  /// Whether operand `operand` of `op` is read or written along the
  /// innermost loop dim (contiguously; else it is the same for the group).
  bool isContiguous(linalg::LinalgOp op, OpOperand &operand);
  /// Whether every buffer `op` accesses contiguously is aligned for vectors.
  Value emitAlignmentCheck(linalg::LinalgOp op, IRMapping &mapping);
  void emitScalarLoop(const Nest &nest, ArrayRef<int64_t> ranges,
                      IRMapping &mapping);
  void emitVectorLoop(const Nest &nest, ArrayRef<int64_t> ranges,
                      IRMapping &mapping);
  /// One warp (or, `perBlock`, one block) per output: the lanes stride
  /// over the innermost (reduction) dim and combine with a subgroup
  /// reduction (shuffles on the GPU); a block's warps then combine through
  /// shared memory.
  void emitShuffleReduction(const Nest &nest, ArrayRef<int64_t> ranges,
                            IRMapping &mapping, Operation *combiner,
                            gpu::AllReduceOperation kind, bool perBlock);
  /// The total of the block's warps' `warpTotal`s, in every thread: each
  /// warp's lane 0 leaves its total in shared memory, and every warp
  /// reduces those. Barriers on both sides keep the slots of one output
  /// from the next.
  Value emitCrossWarpReduction(Value warpTotal, Value identity,
                               gpu::AllReduceOperation kind);
  /// The kernel's shared memory for cross-warp reductions: one f32 slot per
  /// warp of the largest block.
  Value getWarpSlots();
  /// Clones the payload of `op` with `args` for its block arguments; returns
  /// the yielded values.
  SmallVector<Value> emitPayload(linalg::LinalgOp op, ArrayRef<Value> args,
                                 IRMapping &mapping);

  OpBuilder &b;
  gpu::GPUFuncOp func;
  Location loc;
  unsigned blockSize, vectorWidth;
  Value first, stride;
  Value warpSlots;
  int64_t work = 0;
};

} // namespace

void KernelBuilder::delinearize(Value linear, ArrayRef<int64_t> dims,
                                ArrayRef<int64_t> ranges,
                                SmallVectorImpl<Value> &ivs) {
  // The innermost dim varies fastest.
  Value rest = linear;
  for (size_t i = dims.size(); i-- > 0;) {
    int64_t size = ranges[dims[i]];
    if (i == 0) {
      ivs[dims[i]] = rest;
      break;
    }
    Value size_v = index(size);
    ivs[dims[i]] = arith::RemUIOp::create(b, loc, rest, size_v);
    rest = arith::DivUIOp::create(b, loc, rest, size_v);
  }
}

SmallVector<Value> KernelBuilder::applyMap(AffineMap map, ArrayRef<Value> ivs) {
  SmallVector<Value> indices;
  for (AffineExpr expr : map.getResults()) {
    if (auto dim = dyn_cast<AffineDimExpr>(expr))
      indices.push_back(ivs[dim.getPosition()]);
    else if (auto constant = dyn_cast<AffineConstantExpr>(expr))
      indices.push_back(index(constant.getValue()));
    else {
      // Dims the expression does not use may have no value yet here.
      SmallVector<Value> operands;
      for (auto [d, iv] : llvm::enumerate(ivs))
        operands.push_back(iv && expr.isFunctionOfDim(d) ? iv : index(0));
      indices.push_back(affine::AffineApplyOp::create(
          b, loc, AffineMap::get(map.getNumDims(), 0, expr), operands));
    }
  }
  return indices;
}

bool KernelBuilder::isContiguous(linalg::LinalgOp op, OpOperand &operand) {
  AffineMap map = op.getMatchingIndexingMap(&operand);
  unsigned innermost = op.getNumLoops() - 1;
  return map.getNumResults() > 0 &&
         llvm::any_of(map.getResults(), [&](AffineExpr e) {
           return e.isFunctionOfDim(innermost);
         });
}

bool KernelBuilder::canVectorize(linalg::LinalgOp op,
                                 ArrayRef<int64_t> ranges) {
  unsigned numLoops = op.getNumLoops();
  if (vectorWidth <= 1 || numLoops == 0 || op.getNumReductionLoops() != 0 ||
      ranges.back() % vectorWidth != 0)
    return false;
  unsigned innermost = numLoops - 1;
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    if (!type) {
      if (op.isDpsInput(&operand))
        continue; // a scalar (a fill's value)
      return false;
    }
    if (!type.getElementType().isF32())
      return false;
    if (!isContiguous(op, operand)) {
      if (op.isDpsInit(&operand))
        return false; // every output element is written
      continue;       // a broadcast: one scalar per group
    }
    // The innermost dim is the last index, alone, with unit stride; the
    // other strides keep each row's start aligned.
    AffineMap map = op.getMatchingIndexingMap(&operand);
    auto last = dyn_cast<AffineDimExpr>(map.getResults().back());
    if (!last || last.getPosition() != innermost)
      return false;
    for (AffineExpr e : map.getResults().drop_back())
      if (e.isFunctionOfDim(innermost))
        return false;
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(type.getStridesAndOffset(strides, offset)) ||
        strides.back() != 1)
      return false;
    for (int64_t s : ArrayRef<int64_t>(strides).drop_back())
      if (ShapedType::isDynamic(s) || s % vectorWidth != 0)
        return false;
  }
  return true;
}

Value KernelBuilder::emitAlignmentCheck(linalg::LinalgOp op,
                                        IRMapping &mapping) {
  Value aligned = arith::ConstantIntOp::create(b, loc, 1, 1);
  int64_t bytes = static_cast<int64_t>(vectorWidth) * 4;
  for (OpOperand &operand : op->getOpOperands()) {
    if (!isa<MemRefType>(operand.get().getType()) || !isContiguous(op, operand))
      continue;
    Value buffer = mapping.lookup(operand.get());
    Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer);
    auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, buffer);
    Value offsetBytes =
        arith::MulIOp::create(b, loc, metadata.getOffset(), index(4));
    Value address = arith::AddIOp::create(b, loc, base, offsetBytes);
    Value remainder = arith::RemUIOp::create(b, loc, address, index(bytes));
    Value isAligned = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                            remainder, index(0));
    aligned = arith::AndIOp::create(b, loc, aligned, isAligned);
  }
  return aligned;
}

SmallVector<Value> KernelBuilder::emitPayload(linalg::LinalgOp op,
                                              ArrayRef<Value> args,
                                              IRMapping &mapping) {
  Block &body = op->getRegion(0).front();
  IRMapping payload = mapping;
  for (auto [arg, value] : llvm::zip(body.getArguments(), args))
    if (value)
      payload.map(arg, value);
  for (Operation &inner : body.without_terminator())
    b.clone(inner, payload);
  SmallVector<Value> yields;
  for (Value v : body.getTerminator()->getOperands())
    yields.push_back(payload.lookupOrDefault(v));
  return yields;
}

void KernelBuilder::emitScalarLoop(const Nest &nest, ArrayRef<int64_t> ranges,
                                   IRMapping &mapping) {
  linalg::LinalgOp op = nest.op;
  SmallVector<unsigned> parallel, reduction;
  op.getParallelDims(parallel);
  op.getReductionDims(reduction);
  SmallVector<int64_t> parallelDims(parallel.begin(), parallel.end());
  SmallVector<int64_t> reductionDims(reduction.begin(), reduction.end());
  int64_t elements = 1;
  for (int64_t d : parallelDims)
    elements *= ranges[d];
  auto loop = scf::ForOp::create(b, loc, first, index(elements), stride);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  SmallVector<Value> ivs(op.getNumLoops());
  delinearize(loop.getInductionVar(), parallelDims, ranges, ivs);

  Block &body = op->getRegion(0).front();
  auto loadOperand = [&](OpOperand &operand, ArrayRef<Value> at) -> Value {
    Value source = mapping.lookupOrDefault(operand.get());
    if (!isa<MemRefType>(source.getType()))
      return source; // a scalar input (a fill's value)
    return memref::LoadOp::create(
        b, loc, source, applyMap(op.getMatchingIndexingMap(&operand), at));
  };

  if (reductionDims.empty()) {
    SmallVector<Value> args;
    for (OpOperand &operand : op->getOpOperands()) {
      bool used = !body.getArgument(operand.getOperandNumber()).use_empty();
      args.push_back(used ? loadOperand(operand, ivs) : Value());
    }
    SmallVector<Value> results = isa<linalg::FillOp>(op.getOperation())
                                     ? SmallVector<Value>{args.front()}
                                     : emitPayload(op, args, mapping);
    for (auto [init, value] : llvm::zip(op.getDpsInitsMutable(), results))
      memref::StoreOp::create(b, loc, value,
                              mapping.lookupOrDefault(init.get()),
                              applyMap(op.getMatchingIndexingMap(&init), ivs));
    return;
  }

  // Outputs indexed by parallel dims only accumulate over the reduction
  // (from the fill, or from what they hold); the others (a reduction's
  // epilogue writing every element) are written at every step.
  auto involvesReduction = [&](AffineMap map) {
    return llvm::any_of(reductionDims, [&](int64_t d) {
      return llvm::any_of(map.getResults(),
                          [&](AffineExpr e) { return e.isFunctionOfDim(d); });
    });
  };
  SmallVector<OpOperand *> accumulated, perStep;
  SmallVector<Value> accumulators;
  for (auto [i, init] : llvm::enumerate(op.getDpsInitsMutable())) {
    if (involvesReduction(op.getMatchingIndexingMap(&init))) {
      perStep.push_back(&init);
      continue;
    }
    accumulated.push_back(&init);
    if (nest.fill && i == nest.fillOutput)
      accumulators.push_back(
          mapping.lookupOrDefault(linalg::FillOp(nest.fill).getInputs()[0]));
    else
      accumulators.push_back(loadOperand(init, ivs));
  }
  // One sequential loop per reduction dim, the accumulators carried.
  SmallVector<scf::ForOp> loops;
  SmallVector<Value> carried = accumulators;
  for (int64_t d : reductionDims) {
    auto inner = scf::ForOp::create(b, loc, index(0), index(ranges[d]),
                                    index(1), carried);
    loops.push_back(inner);
    b.setInsertionPointToStart(inner.getBody());
    ivs[d] = inner.getInductionVar();
    carried.assign(inner.getRegionIterArgs().begin(),
                   inner.getRegionIterArgs().end());
  }
  // Loops without accumulators got their terminator when built.
  if (carried.empty())
    b.setInsertionPoint(loops.back().getBody()->getTerminator());
  SmallVector<Value> args;
  for (OpOperand *input : op.getDpsInputOperands())
    args.push_back(loadOperand(*input, ivs));
  size_t nextCarried = 0;
  for (OpOperand &init : op.getDpsInitsMutable()) {
    if (llvm::is_contained(accumulated, &init))
      args.push_back(carried[nextCarried++]);
    else
      args.push_back(op.payloadUsesValueFromOperand(&init)
                         ? loadOperand(init, ivs)
                         : Value());
  }
  SmallVector<Value> results = emitPayload(op, args, mapping);
  SmallVector<Value> carriedResults;
  for (auto [init, value] : llvm::zip(op.getDpsInitsMutable(), results)) {
    if (llvm::is_contained(accumulated, &init))
      carriedResults.push_back(value);
    else
      memref::StoreOp::create(b, loc, value,
                              mapping.lookupOrDefault(init.get()),
                              applyMap(op.getMatchingIndexingMap(&init), ivs));
  }
  if (!carried.empty()) {
    scf::YieldOp::create(b, loc, carriedResults);
    for (size_t i = loops.size() - 1; i > 0; --i) {
      b.setInsertionPointToEnd(loops[i - 1].getBody());
      scf::YieldOp::create(b, loc, loops[i].getResults());
    }
  }
  b.setInsertionPointAfter(loops.front());
  for (auto [init, value] : llvm::zip(accumulated, loops.front().getResults()))
    memref::StoreOp::create(b, loc, value, mapping.lookupOrDefault(init->get()),
                            applyMap(op.getMatchingIndexingMap(init), ivs));
}

void KernelBuilder::emitVectorLoop(const Nest &nest, ArrayRef<int64_t> ranges,
                                   IRMapping &mapping) {
  linalg::LinalgOp op = nest.op;
  unsigned numLoops = op.getNumLoops();
  SmallVector<int64_t> dims;
  for (unsigned d = 0; d < numLoops; ++d)
    dims.push_back(d);
  int64_t elements = 1;
  for (int64_t r : ranges)
    elements *= r;
  int64_t width = vectorWidth;
  auto loop =
      scf::ForOp::create(b, loc, first, index(elements / width), stride);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value linear =
      arith::MulIOp::create(b, loc, loop.getInductionVar(), index(width));
  SmallVector<Value> ivs(numLoops);
  delinearize(linear, dims, ranges, ivs);
  auto alignment = llvm::MaybeAlign(width * 4);
  auto vectorType = VectorType::get({width}, b.getF32Type());

  // Per operand: a vector (contiguous) or one scalar for the group.
  Block &body = op->getRegion(0).front();
  SmallVector<Value> loaded;
  SmallVector<bool> isVector;
  for (OpOperand &operand : op->getOpOperands()) {
    bool used = !body.getArgument(operand.getOperandNumber()).use_empty() ||
                isa<linalg::FillOp>(op.getOperation());
    Value source = mapping.lookupOrDefault(operand.get());
    bool contiguous =
        isa<MemRefType>(source.getType()) && isContiguous(op, operand);
    isVector.push_back(contiguous);
    if (!used ||
        (op.isDpsInit(&operand) && !op.payloadUsesValueFromOperand(&operand))) {
      loaded.push_back(Value());
      continue;
    }
    if (!isa<MemRefType>(source.getType()))
      loaded.push_back(source);
    else if (contiguous)
      loaded.push_back(vector::LoadOp::create(
          b, loc, vectorType, source,
          applyMap(op.getMatchingIndexingMap(&operand), ivs), false,
          alignment));
    else
      loaded.push_back(memref::LoadOp::create(
          b, loc, source, applyMap(op.getMatchingIndexingMap(&operand), ivs)));
  }
  // The payload once per lane.
  unsigned numOutputs = op.getNumDpsInits();
  SmallVector<SmallVector<Value>> lanes(numOutputs);
  for (int64_t lane = 0; lane < width; ++lane) {
    SmallVector<Value> args;
    for (auto [value, vector] : llvm::zip(loaded, isVector))
      args.push_back(value && vector
                         ? Value(vector::ExtractOp::create(b, loc, value, lane))
                         : value);
    SmallVector<Value> results = isa<linalg::FillOp>(op.getOperation())
                                     ? SmallVector<Value>{args.front()}
                                     : emitPayload(op, args, mapping);
    for (unsigned o = 0; o < numOutputs; ++o)
      lanes[o].push_back(results[o]);
  }
  for (auto [o, init] : llvm::enumerate(op.getDpsInitsMutable())) {
    Value vector = vector::FromElementsOp::create(b, loc, vectorType, lanes[o]);
    vector::StoreOp::create(b, loc, vector, mapping.lookupOrDefault(init.get()),
                            applyMap(op.getMatchingIndexingMap(&init), ivs),
                            false, alignment);
  }
}

/// The shuffle-reduction form of `op`, if it has it: one output, one
/// reduction dim, innermost and at least a warp long, and a payload that
/// combines the accumulator once with an associative float op (sum, product,
/// max, min). Returns the combining op and its subgroup-reduction kind.
static std::optional<std::pair<Operation *, gpu::AllReduceOperation>>
getShuffleReduction(linalg::LinalgOp op, ArrayRef<int64_t> ranges,
                    unsigned blockSize) {
  unsigned numLoops = op.getNumLoops();
  // Whole warps only: lane ids and warp indices must agree.
  if (blockSize % 32 != 0 || numLoops == 0 || op.getNumReductionLoops() != 1 ||
      op.getIteratorTypesArray().back() != utils::IteratorType::reduction ||
      ranges.back() < 32 || op.getNumDpsInits() != 1 ||
      !isa<linalg::GenericOp, linalg::ReduceOp>(op.getOperation()))
    return std::nullopt;
  // The output is indexed by the other (parallel) dims alone.
  AffineMap outputMap = op.getMatchingIndexingMap(&op.getDpsInitsMutable()[0]);
  if (!outputMap.isProjectedPermutation() ||
      outputMap.isFunctionOfDim(numLoops - 1))
    return std::nullopt;
  Block &body = op->getRegion(0).front();
  BlockArgument accumulator = body.getArguments().back();
  // 32-bit values: warp shuffles move 32 bits.
  if (!accumulator.getType().isF32())
    return std::nullopt;
  if (!accumulator.hasOneUse())
    return std::nullopt;
  Operation *combiner = body.getTerminator()->getOperand(0).getDefiningOp();
  if (!combiner || combiner != *accumulator.getUsers().begin() ||
      combiner->getNumOperands() != 2)
    return std::nullopt;
  std::optional<gpu::AllReduceOperation> kind =
      llvm::TypeSwitch<Operation *, std::optional<gpu::AllReduceOperation>>(
          combiner)
          .Case([](arith::AddFOp) { return gpu::AllReduceOperation::ADD; })
          .Case([](arith::MulFOp) { return gpu::AllReduceOperation::MUL; })
          .Case([](arith::MaximumFOp) {
            return gpu::AllReduceOperation::MAXIMUMF;
          })
          .Case([](arith::MinimumFOp) {
            return gpu::AllReduceOperation::MINIMUMF;
          })
          .Case(
              [](arith::MaxNumFOp) { return gpu::AllReduceOperation::MAXNUMF; })
          .Case(
              [](arith::MinNumFOp) { return gpu::AllReduceOperation::MINNUMF; })
          .Default([](Operation *) { return std::nullopt; });
  if (!kind)
    return std::nullopt;
  return std::make_pair(combiner, *kind);
}

/// The value `kind` starts a reduction from.
static double getIdentity(gpu::AllReduceOperation kind) {
  switch (kind) {
  case gpu::AllReduceOperation::MUL:
    return 1.0;
  case gpu::AllReduceOperation::MAXIMUMF:
  case gpu::AllReduceOperation::MAXNUMF:
    return -std::numeric_limits<double>::infinity();
  case gpu::AllReduceOperation::MINIMUMF:
  case gpu::AllReduceOperation::MINNUMF:
    return std::numeric_limits<double>::infinity();
  default:
    return 0.0;
  }
}

Value KernelBuilder::getWarpSlots() {
  if (!warpSlots) {
    auto workgroup = gpu::AddressSpaceAttr::get(b.getContext(),
                                                gpu::AddressSpace::Workgroup);
    warpSlots = func.addWorkgroupAttribution(
        MemRefType::get({kMaxWarpsPerBlock}, b.getF32Type(),
                        MemRefLayoutAttrInterface(), workgroup),
        loc);
  }
  return warpSlots;
}

Value KernelBuilder::emitCrossWarpReduction(Value warpTotal, Value identity,
                                            gpu::AllReduceOperation kind) {
  Value slots = getWarpSlots();
  Value warpSize = gpu::SubgroupSizeOp::create(b, loc, /*upper_bound=*/nullptr);
  Value lane = gpu::LaneIdOp::create(b, loc, /*upper_bound=*/nullptr);
  Value thread = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value blockDim = gpu::BlockDimOp::create(b, loc, gpu::Dimension::x);
  Value warp = arith::DivUIOp::create(b, loc, thread, warpSize);
  Value warps = arith::CeilDivUIOp::create(b, loc, blockDim, warpSize);
  Value isFirstLane =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane, index(0));
  {
    auto publish = scf::IfOp::create(b, loc, isFirstLane, /*withElse=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(publish.thenBlock());
    memref::StoreOp::create(b, loc, warpTotal, slots, ValueRange{warp});
  }
  gpu::BarrierOp::create(b, loc);
  // Lane i takes warp i's total (lanes past the block's warps the identity;
  // a block has at most a warp of warps).
  Value slot =
      arith::MinUIOp::create(b, loc, lane, index(kMaxWarpsPerBlock - 1));
  Value published = memref::LoadOp::create(b, loc, slots, ValueRange{slot});
  Value hasWarp =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, lane, warps);
  Value share = arith::SelectOp::create(b, loc, hasWarp, published, identity);
  Value total = gpu::SubgroupReduceOp::create(b, loc, share, kind,
                                              /*uniform=*/true);
  gpu::BarrierOp::create(b, loc);
  return total;
}

void KernelBuilder::emitShuffleReduction(
    const Nest &nest, ArrayRef<int64_t> ranges, IRMapping &mapping,
    Operation *combiner, gpu::AllReduceOperation kind, bool perBlock) {
  linalg::LinalgOp op = nest.op;
  unsigned innermost = op.getNumLoops() - 1;
  SmallVector<int64_t> parallelDims;
  for (unsigned d = 0; d < innermost; ++d)
    parallelDims.push_back(d);
  int64_t outputs = 1;
  for (int64_t d : parallelDims)
    outputs *= ranges[d];
  // The unit (a warp or a block) that reduces one output at a time,
  // grid-striding over the outputs, and this thread's place in it. A
  // block's loop bounds are the same in all its threads, so all of them
  // reach its barriers.
  Value unit, units, member, unitSize;
  if (perBlock) {
    unit = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
    units = gpu::GridDimOp::create(b, loc, gpu::Dimension::x);
    member = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
    unitSize = gpu::BlockDimOp::create(b, loc, gpu::Dimension::x);
  } else {
    unitSize = gpu::SubgroupSizeOp::create(b, loc, /*upper_bound=*/nullptr);
    unit = arith::DivUIOp::create(b, loc, first, unitSize);
    units = arith::DivUIOp::create(b, loc, stride, unitSize);
    member = gpu::LaneIdOp::create(b, loc, /*upper_bound=*/nullptr);
  }
  auto loop = scf::ForOp::create(b, loc, unit, index(outputs), units);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  SmallVector<Value> ivs(op.getNumLoops());
  if (!parallelDims.empty())
    delinearize(loop.getInductionVar(), parallelDims, ranges, ivs);

  OpOperand &init = op.getDpsInitsMutable()[0];
  Type type = cast<MemRefType>(init.get().getType()).getElementType();
  Value start =
      nest.fill
          ? mapping.lookupOrDefault(linalg::FillOp(nest.fill).getInputs()[0])
          : Value(memref::LoadOp::create(
                b, loc, mapping.lookupOrDefault(init.get()),
                applyMap(op.getMatchingIndexingMap(&init), ivs)));
  Value identity = arith::ConstantOp::create(
      b, loc, b.getFloatAttr(type, getIdentity(kind)));
  // Each thread's share: the payload from the identity, striding by the
  // unit's size.
  auto shares = scf::ForOp::create(b, loc, member, index(ranges[innermost]),
                                   unitSize, ValueRange{identity});
  {
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(shares.getBody());
    ivs[innermost] = shares.getInductionVar();
    SmallVector<Value> args;
    for (OpOperand *input : op.getDpsInputOperands())
      args.push_back(memref::LoadOp::create(
          b, loc, mapping.lookupOrDefault(input->get()),
          applyMap(op.getMatchingIndexingMap(input), ivs)));
    args.push_back(shares.getRegionIterArgs()[0]);
    scf::YieldOp::create(b, loc, emitPayload(op, args, mapping));
  }
  Value total = gpu::SubgroupReduceOp::create(b, loc, shares.getResult(0), kind,
                                              /*uniform=*/true);
  if (perBlock)
    total = emitCrossWarpReduction(total, identity, kind);
  // The output's own value joins once, by the same op.
  OperationState state(loc, combiner->getName());
  state.addOperands({start, total});
  state.addTypes(type);
  state.addAttributes(combiner->getAttrs());
  Value result = b.create(state)->getResult(0);
  Value isFirst =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, member, index(0));
  auto store = scf::IfOp::create(b, loc, isFirst, /*withElse=*/false);
  b.setInsertionPointToStart(store.thenBlock());
  memref::StoreOp::create(b, loc, result, mapping.lookupOrDefault(init.get()),
                          applyMap(op.getMatchingIndexingMap(&init), ivs));
}

bool KernelBuilder::emitNest(const Nest &nest, IRMapping &mapping) {
  linalg::LinalgOp op = nest.op;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t parallelElements = 1;
  for (auto [d, type] : llvm::enumerate(op.getIteratorTypesArray()))
    if (type == utils::IteratorType::parallel)
      parallelElements *= ranges[d];
  if (parallelElements == 0)
    return false;
  if (auto reduction = getShuffleReduction(op, ranges, blockSize)) {
    // A block per output where rows are long enough to keep a block's
    // warps busy, else a warp per output.
    bool perBlock =
        blockSize >= 64 && ranges.back() >= kBlockReductionMinLength;
    work = std::max(work, parallelElements * (perBlock ? blockSize : 32));
    emitShuffleReduction(nest, ranges, mapping, reduction->first,
                         reduction->second, perBlock);
    return false;
  }
  if (!canVectorize(op, ranges)) {
    work = std::max(work, parallelElements);
    emitScalarLoop(nest, ranges, mapping);
    return false;
  }
  work = std::max(work, parallelElements / vectorWidth);
  Value aligned = emitAlignmentCheck(op, mapping);
  auto branch = scf::IfOp::create(b, loc, aligned, /*withElse=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(branch.thenBlock());
    emitVectorLoop(nest, ranges, mapping);
    b.setInsertionPointToStart(branch.elseBlock());
    emitScalarLoop(nest, ranges, mapping);
  }
  return true;
}

namespace {
struct KilnMapKernelsToGpuPass
    : kiln::impl::KilnMapKernelsToGpuBase<KilnMapKernelsToGpuPass> {
  using Base::Base;

  void runOnOperation() override;

private:
  /// The GPU kernels of `kernel`, one per stage, with their grid sizes.
  LogicalResult
  mapKernel(func::FuncOp kernel, ArrayRef<func::CallOp> calls,
            gpu::GPUModuleOp gpuModule,
            SmallVectorImpl<std::pair<gpu::GPUFuncOp, int64_t>> &launches);
};
} // namespace

LogicalResult KilnMapKernelsToGpuPass::mapKernel(
    func::FuncOp kernel, ArrayRef<func::CallOp> calls,
    gpu::GPUModuleOp gpuModule,
    SmallVectorImpl<std::pair<gpu::GPUFuncOp, int64_t>> &launches) {
  for (BlockArgument arg : kernel.getArguments())
    if (auto type = dyn_cast<MemRefType>(arg.getType());
        !type || !type.hasStaticShape())
      return kernel.emitError("a GPU kernel needs buffers of static shape, "
                              "got ")
             << arg.getType();
  FailureOr<SmallVector<Stage>> stages =
      splitIntoStages(kernel, getArgumentAliases(kernel, calls));
  if (failed(stages))
    return failure();
  OpBuilder b(gpuModule.getBodyRegion());
  b.setInsertionPointToEnd(gpuModule.getBody());
  Location loc = kernel.getLoc();
  for (auto [index, stage] : llvm::enumerate(*stages)) {
    std::string name = kernel.getSymName().str();
    if (stages->size() > 1)
      name += "_" + std::to_string(index);
    auto func = gpu::GPUFuncOp::create(b, loc, name, kernel.getFunctionType());
    func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
    func.setKnownBlockSizeAttr(b.getDenseI32ArrayAttr(
        {static_cast<int32_t>(blockSize.getValue()), 1, 1}));
    OpBuilder body = OpBuilder::atBlockEnd(&func.getBody().front());
    IRMapping mapping;
    for (auto [from, to] :
         llvm::zip(kernel.getArguments(), func.getArguments()))
      mapping.map(from, to);
    // The kernel's other ops are constants its loops use.
    for (Operation &op : kernel.getBody().front().without_terminator())
      if (!isa<linalg::LinalgOp>(op))
        body.clone(op, mapping);
    KernelBuilder builder(body, func, blockSize, vectorWidth);
    builder.emitThreadIndex();
    for (const Nest &nest : stage)
      if (builder.emitNest(nest, mapping))
        ++numVectorized;
    gpu::ReturnOp::create(body, loc);
    ++numKernels;
    int64_t blocks = (builder.getWork() + blockSize - 1) / blockSize;
    launches.emplace_back(func, std::clamp<int64_t>(blocks, 1, maxBlocks));
  }
  return success();
}

void KilnMapKernelsToGpuPass::runOnOperation() {
  ModuleOp module = getOperation();
  if (blockSize == 0 || blockSize > 1024 ||
      (vectorWidth != 1 && vectorWidth != 2 && vectorWidth != 4) ||
      maxBlocks == 0) {
    module.emitError("kiln-map-kernels-to-gpu: block-size must be in "
                     "[1, 1024], vector-width 1, 2 or 4 (at most 128 bits), "
                     "max-blocks positive");
    return signalPassFailure();
  }
  SmallVector<func::FuncOp> kernels;
  for (auto func : module.getOps<func::FuncOp>())
    if (func->hasAttr(kiln::KilnDialect::KernelAttrHelper::getNameStr()))
      kernels.push_back(func);
  if (kernels.empty())
    return;

  module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                  UnitAttr::get(&getContext()));
  OpBuilder b(module.getBodyRegion());
  b.setInsertionPointToEnd(module.getBody());
  auto gpuModule = gpu::GPUModuleOp::create(b, module.getLoc(), kGpuModuleName);

  // Each kernel's calls, in program order.
  llvm::StringMap<SmallVector<func::CallOp>> callsOf;
  SmallVector<func::CallOp> calls;
  module.walk([&](func::CallOp call) {
    if (auto callee = module.lookupSymbol<func::FuncOp>(call.getCallee());
        callee &&
        callee->hasAttr(kiln::KilnDialect::KernelAttrHelper::getNameStr())) {
      callsOf[call.getCallee()].push_back(call);
      calls.push_back(call);
    }
  });

  // Each kernel's launches, by its name.
  llvm::StringMap<SmallVector<std::pair<gpu::GPUFuncOp, int64_t>>> launchesOf;
  for (func::FuncOp kernel : kernels)
    if (failed(mapKernel(kernel, callsOf[kernel.getSymName()], gpuModule,
                         launchesOf[kernel.getSymName()])))
      return signalPassFailure();

  // Calls become launches.
  for (func::CallOp call : calls) {
    OpBuilder at(call);
    Location loc = call.getLoc();
    Value one = arith::ConstantIndexOp::create(at, loc, 1);
    Value threads = arith::ConstantIndexOp::create(at, loc, blockSize);
    for (auto [func, blocks] : launchesOf[call.getCallee()]) {
      Value grid = arith::ConstantIndexOp::create(at, loc, blocks);
      gpu::LaunchFuncOp::create(at, loc, func, gpu::KernelDim3{grid, one, one},
                                gpu::KernelDim3{threads, one, one},
                                /*dynamicSharedMemorySize=*/Value(),
                                call.getArgOperands());
    }
    call.erase();
  }
  for (func::FuncOp kernel : kernels)
    kernel.erase();
}
