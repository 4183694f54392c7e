//===- LowerColumnReductions.cpp - -kiln-lower-column-reductions ----------===//
//
// A linalg.generic on buffers that reduces over a dim which is not its
// operands' contiguous one (a bias gradient: the sum over the rows of a
// [rows, cols] buffer) becomes
//
//   scf.parallel (other parallel dims, column blocks) {
//     scf.for (reduction dims) {
//       scf.for (columns of the block) { body }   // vectorized
//     }
//   }
//
// instead of -convert-linalg-to-parallel-loops' nest in the iteration
// order, which walks each column down the rows: one element per row of
// every buffer, a stride of a whole row apart. Here each row of a block is
// one contiguous run, and the block's accumulators stay in L1.
//
//===----------------------------------------------------------------------===//

#include "Codegen/CPU/RequestVectorization.h"
#include "kiln/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"

#include <limits>

namespace kiln {
#define GEN_PASS_DEF_KILNLOWERCOLUMNREDUCTIONS
#include "kiln/Codegen/CPU/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {

/// The loop dim that the contiguous (last) dim of `generic`'s largest
/// operands follows, if it is a parallel dim with a reduction dim after it
/// in the loop order (so that the default nest walks it outside the
/// reduction), and `generic` is one this pass can lower.
std::optional<unsigned> findColumnDim(linalg::GenericOp generic) {
  if (!generic.hasPureBufferSemantics() || generic.getNumReductionLoops() == 0)
    return std::nullopt;
  SmallVector<int64_t> ranges = generic.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return std::nullopt;
  int64_t largest = 0;
  for (OpOperand &operand : generic->getOpOperands()) {
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    AffineMap map = generic.getMatchingIndexingMap(&operand);
    if (!type || !type.hasStaticShape() ||
        llvm::any_of(map.getResults(), [](AffineExpr e) {
          return !isa<AffineDimExpr, AffineConstantExpr>(e);
        }))
      return std::nullopt;
    largest = std::max(largest, type.getNumElements());
  }
  SmallVector<utils::IteratorType> iterators = generic.getIteratorTypesArray();
  std::optional<unsigned> column;
  for (OpOperand &operand : generic->getOpOperands()) {
    auto type = cast<MemRefType>(operand.get().getType());
    if (type.getNumElements() != largest || type.getRank() == 0)
      continue;
    // The contiguous dim: the innermost one of an identity layout or of
    // unit stride.
    int64_t offset;
    SmallVector<int64_t> strides;
    if (failed(type.getStridesAndOffset(strides, offset)) ||
        strides.back() != 1)
      return std::nullopt;
    auto dim = dyn_cast<AffineDimExpr>(
        generic.getMatchingIndexingMap(&operand).getResults().back());
    if (!dim || (column && *column != dim.getPosition()))
      return std::nullopt;
    column = dim.getPosition();
  }
  if (!column || iterators[*column] != utils::IteratorType::parallel)
    return std::nullopt;
  // Each output element is then written by one iteration of the parallel
  // loop only.
  for (OpOperand &output : generic.getDpsInitsMutable())
    for (auto [d, iterator] : llvm::enumerate(iterators))
      if (iterator == utils::IteratorType::parallel &&
          !generic.getMatchingIndexingMap(&output).isFunctionOfDim(d))
        return std::nullopt;
  for (unsigned d = *column + 1; d < iterators.size(); ++d)
    if (iterators[d] == utils::IteratorType::reduction)
      return column;
  return std::nullopt;
}

/// The columns of one block: wide enough that each row of it is a long
/// contiguous run, narrow enough that at least 8 blocks share the threads
/// (and that a block's rows stay in L1), a multiple of the vector width;
/// all of them where they fit in one.
int64_t chooseBlock(int64_t columns, unsigned vectorWidth,
                    unsigned interleave) {
  int64_t lanes = std::max<int64_t>(1, vectorWidth);
  int64_t least = lanes * std::max<int64_t>(1, interleave);
  int64_t block = llvm::divideCeil(llvm::divideCeil(columns, 8), lanes) * lanes;
  // Columns that fit one block are one block: static loop bounds, which
  // tell the vectorizer a short row's true width.
  return std::min<int64_t>({std::max(block, least), 512, columns});
}

/// An output that accumulates over the reduction dims with an associative
/// float op (a sum, a product, a max, a min), which partial results over
/// chunks of the rows can be combined by.
struct Accumulation {
  OpOperand *output;
  Operation *combiner;
  TypedAttr identity;
};

/// The accumulations of `generic`'s outputs that the reduction dims do not
/// index, if every one is such: its element read only by its combiner,
/// whose result only it yields.
std::optional<SmallVector<Accumulation>>
getAccumulations(linalg::GenericOp generic) {
  SmallVector<unsigned> reductionDims;
  generic.getReductionDims(reductionDims);
  Operation *yield = generic.getBody()->getTerminator();
  SmallVector<Accumulation> result;
  for (OpOperand &output : generic.getDpsInitsMutable()) {
    AffineMap map = generic.getMatchingIndexingMap(&output);
    if (llvm::any_of(reductionDims,
                     [&](unsigned d) { return map.isFunctionOfDim(d); }))
      continue;
    BlockArgument element = generic.getMatchingBlockArgument(&output);
    auto type = dyn_cast<FloatType>(element.getType());
    Value yielded = yield->getOperand(output.getOperandNumber() -
                                      generic.getNumDpsInputs());
    Operation *combiner = yielded.getDefiningOp();
    if (!type || !element.hasOneUse() || !combiner ||
        *element.getUsers().begin() != combiner ||
        combiner->getNumOperands() != 2 || !yielded.hasOneUse())
      return std::nullopt;
    Builder b(generic.getContext());
    double inf = std::numeric_limits<double>::infinity();
    std::optional<double> identity =
        llvm::TypeSwitch<Operation *, std::optional<double>>(combiner)
            .Case([](arith::AddFOp) { return 0.0; })
            .Case([](arith::MulFOp) { return 1.0; })
            .Case<arith::MaximumFOp, arith::MaxNumFOp>(
                [&](Operation *) { return -inf; })
            .Case<arith::MinimumFOp, arith::MinNumFOp>(
                [&](Operation *) { return inf; })
            .Default([](Operation *) { return std::nullopt; });
    if (!identity)
      return std::nullopt;
    result.push_back({&output, combiner, b.getFloatAttr(type, *identity)});
  }
  return result;
}

/// Rows per chunk at least, when the rows are split into chunks.
constexpr int64_t kMinChunkRows = 16;
/// Parallel iterations (other parallel dims x column blocks x row chunks)
/// the rows are split for, at most.
constexpr int64_t kParallelIterations = 8;
/// Elements a reduction must have for its rows to be split: smaller ones
/// take less time than a fork of the threads.
constexpr int64_t kMinChunkedElements = 32768;
/// The widest block of columns when the rows are split: 4 KB of f32 per
/// row, a page the prefetcher follows, and a block's accumulators in L1.
constexpr int64_t kWideBlock = 1024;

void lowerColumnReduction(RewriterBase &rewriter, linalg::GenericOp generic,
                          unsigned column, unsigned vectorWidth,
                          unsigned interleave) {
  Location loc = generic.getLoc();
  rewriter.setInsertionPoint(generic);
  SmallVector<int64_t> ranges = generic.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = generic.getIteratorTypesArray();
  // Few parallel iterations and many rows: whole rows of up to
  // kWideBlock columns, the rows split in chunks whose partial results are
  // combined afterwards, in chunk order.
  int64_t columns = ranges[column], chunks = 1, block = 0;
  unsigned chunkDim = 0;
  std::optional<SmallVector<Accumulation>> accumulations =
      getAccumulations(generic);
  int64_t elements = 1;
  for (int64_t range : ranges)
    elements *= range;
  if (accumulations && !accumulations->empty() &&
      elements >= kMinChunkedElements) {
    int64_t lanes = std::max<int64_t>(1, vectorWidth);
    int64_t wide = columns <= kWideBlock
                       ? columns
                       : llvm::divideCeil(kWideBlock, lanes) * lanes;
    int64_t outer = llvm::divideCeil(columns, wide);
    for (auto [d, iterator] : llvm::enumerate(iterators))
      if (iterator == utils::IteratorType::parallel && d != column)
        outer *= ranges[d];
    chunkDim = *llvm::find_if(
        llvm::seq<unsigned>(0, iterators.size()), [&](unsigned d) {
          return iterators[d] == utils::IteratorType::reduction;
        });
    chunks = std::min<int64_t>(llvm::divideCeil(kParallelIterations, outer),
                               ranges[chunkDim] / kMinChunkRows);
    if (chunks >= 2)
      block = wide;
    else
      chunks = 1;
  }
  if (chunks == 1)
    block = chooseBlock(columns, vectorWidth, interleave);
  bool oneBlock = block == columns;
  // Index constants, each made once, ahead of the loops.
  llvm::DenseMap<int64_t, Value> constants;
  auto constant = [&](int64_t v) {
    Value &c = constants[v];
    if (!c)
      c = arith::ConstantIndexOp::create(rewriter, loc, v);
    return c;
  };
  for (int64_t v : {int64_t(0), int64_t(1), block, chunks})
    constant(v);
  int64_t rowsPerChunk = llvm::divideCeil(ranges[chunkDim], chunks);
  if (chunks > 1)
    constant(rowsPerChunk);
  // Each chunk's partial results: [chunks, the output's shape].
  SmallVector<Value> partials;
  if (chunks > 1)
    for (Accumulation &a : *accumulations) {
      auto type = cast<MemRefType>(a.output->get().getType());
      SmallVector<int64_t> shape = {chunks};
      llvm::append_range(shape, type.getShape());
      partials.push_back(memref::AllocOp::create(
          rewriter, loc, MemRefType::get(shape, type.getElementType())));
    }
  for (int64_t range : ranges)
    constant(range);
  for (AffineMap map : generic.getIndexingMapsArray())
    for (AffineExpr e : map.getResults())
      if (auto c = dyn_cast<AffineConstantExpr>(e))
        constant(c.getValue());

  // The parallel loop: every other parallel dim, and the column blocks
  // unless there is one block (no parallel loop at all when that is all).
  SmallVector<Value> lower, upper, steps;
  SmallVector<unsigned> parallelDims;
  for (auto [d, iterator] : llvm::enumerate(iterators)) {
    if (iterator != utils::IteratorType::parallel || (d == column && oneBlock))
      continue;
    parallelDims.push_back(d);
    lower.push_back(constant(0));
    upper.push_back(constant(ranges[d]));
    steps.push_back(constant(d == column ? block : 1));
  }
  if (chunks > 1) {
    lower.push_back(constant(0));
    upper.push_back(constant(chunks));
    steps.push_back(constant(1));
  }
  SmallVector<Value> ivs(ranges.size());
  Value chunk;
  scf::ParallelOp parallel;
  if (!lower.empty()) {
    parallel = scf::ParallelOp::create(rewriter, loc, lower, upper, steps);
    for (auto [d, iv] : llvm::zip(parallelDims, parallel.getInductionVars()))
      ivs[d] = iv;
    if (chunks > 1)
      chunk = parallel.getInductionVars().back();
    rewriter.setInsertionPointToStart(parallel.getBody());
  }
  Value blockStart = constant(0), blockEnd = constant(ranges[column]);
  if (!oneBlock) {
    blockStart = ivs[column];
    blockEnd = arith::MinSIOp::create(
        rewriter, loc,
        arith::AddIOp::create(rewriter, loc, blockStart, constant(block)),
        constant(ranges[column]));
  }

  auto indices = [&](OpOperand &operand) {
    SmallVector<Value> result;
    for (AffineExpr e : generic.getMatchingIndexingMap(&operand).getResults())
      result.push_back(isa<AffineDimExpr>(e)
                           ? ivs[cast<AffineDimExpr>(e).getPosition()]
                           : constant(cast<AffineConstantExpr>(e).getValue()));
    return result;
  };
  // Where an output's element is read and written: its chunk's partial
  // result, or the output itself.
  auto place = [&](OpOperand &output) -> std::pair<Value, SmallVector<Value>> {
    for (auto [a, partial] : llvm::zip(partials, *accumulations))
      if (partial.output == &output) {
        SmallVector<Value> at = {chunk};
        llvm::append_range(at, indices(output));
        return {a, at};
      }
    return {output.get(), indices(output)};
  };
  auto columnLoop = [&]() {
    auto loop =
        scf::ForOp::create(rewriter, loc, blockStart, blockEnd, constant(1));
    ivs[column] = loop.getInductionVar();
    rewriter.setInsertionPointToStart(loop.getBody());
    return loop;
  };
  Value rowsStart = constant(0), rowsEnd = constant(ranges[chunkDim]);
  if (chunks > 1) {
    // The chunk's partial results start from the output (the first chunk)
    // or the identity.
    OpBuilder::InsertionGuard guard(rewriter);
    scf::ForOp init = columnLoop();
    Value first = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                        chunk, constant(0));
    for (auto [a, partial] : llvm::zip(*accumulations, partials)) {
      Value start = arith::SelectOp::create(
          rewriter, loc, first,
          memref::LoadOp::create(rewriter, loc, a.output->get(),
                                 indices(*a.output)),
          arith::ConstantOp::create(rewriter, loc, a.identity));
      auto [buffer, at] = place(*a.output);
      memref::StoreOp::create(rewriter, loc, start, buffer, at);
    }
    if (vectorWidth > 1)
      kiln::requestVectorization(init, vectorWidth, interleave);
    rewriter.setInsertionPointAfter(init);
    rowsStart =
        arith::MulIOp::create(rewriter, loc, chunk, constant(rowsPerChunk));
    rowsEnd = arith::MinSIOp::create(
        rewriter, loc,
        arith::AddIOp::create(rewriter, loc, rowsStart, constant(rowsPerChunk)),
        constant(ranges[chunkDim]));
  }

  // The reduction dims in their order (the first over the chunk's rows),
  // then the block's columns.
  {
    OpBuilder::InsertionGuard guard(rewriter);
    for (auto [d, iterator] : llvm::enumerate(iterators)) {
      if (iterator != utils::IteratorType::reduction)
        continue;
      bool chunked = d == chunkDim;
      auto loop = scf::ForOp::create(
          rewriter, loc, chunked ? rowsStart : constant(0),
          chunked ? rowsEnd : constant(ranges[d]), constant(1));
      ivs[d] = loop.getInductionVar();
      rewriter.setInsertionPointToStart(loop.getBody());
    }
    scf::ForOp columns = columnLoop();

    // The body at this point, as linalg's loops run it: every operand the
    // body reads is loaded, every value it yields stored.
    Block &body = generic.getRegion().front();
    IRMapping mapping;
    for (OpOperand &operand : generic->getOpOperands()) {
      BlockArgument arg = generic.getMatchingBlockArgument(&operand);
      if (arg.use_empty())
        continue;
      auto [buffer, at] = generic.isDpsInit(&operand)
                              ? place(operand)
                              : std::make_pair(operand.get(), indices(operand));
      mapping.map(arg, memref::LoadOp::create(rewriter, loc, buffer, at));
    }
    // A linalg.index (a random number's counter) is its dim's loop index.
    for (Operation &op : body.without_terminator()) {
      if (auto index = dyn_cast<linalg::IndexOp>(op))
        mapping.map(index.getResult(), ivs[index.getDim()]);
      else
        rewriter.clone(op, mapping);
    }
    for (auto [output, value] :
         llvm::zip(generic.getDpsInitsMutable(),
                   body.getTerminator()->getOperands())) {
      auto [buffer, at] = place(output);
      memref::StoreOp::create(rewriter, loc, mapping.lookupOrDefault(value),
                              buffer, at);
    }
    if (vectorWidth > 1)
      kiln::requestVectorization(columns, vectorWidth, interleave);
  }

  // The chunks' partial results combined in chunk order, into the output.
  if (chunks > 1) {
    rewriter.setInsertionPointAfter(parallel);
    for (auto [a, partial] : llvm::zip(*accumulations, partials)) {
      OpBuilder::InsertionGuard guard(rewriter);
      auto type = cast<MemRefType>(a.output->get().getType());
      SmallVector<Value> at;
      for (int64_t size : type.getShape()) {
        auto loop = scf::ForOp::create(rewriter, loc, constant(0),
                                       constant(size), constant(1));
        at.push_back(loop.getInductionVar());
        rewriter.setInsertionPointToStart(loop.getBody());
      }
      auto over = scf::ForOp::create(
          rewriter, loc, constant(1), constant(chunks), constant(1),
          ValueRange{memref::LoadOp::create(rewriter, loc, partial, [&] {
            SmallVector<Value> first = {constant(0)};
            llvm::append_range(first, at);
            return first;
          }())});
      {
        OpBuilder::InsertionGuard inner(rewriter);
        rewriter.setInsertionPointToStart(over.getBody());
        SmallVector<Value> from = {over.getInductionVar()};
        llvm::append_range(from, at);
        Value next = memref::LoadOp::create(rewriter, loc, partial, from);
        OperationState state(loc, a.combiner->getName());
        state.addOperands({over.getRegionIterArgs()[0], next});
        state.addTypes(next.getType());
        state.addAttributes(a.combiner->getAttrs());
        scf::YieldOp::create(rewriter, loc,
                             rewriter.create(state)->getResult(0));
      }
      memref::StoreOp::create(rewriter, loc, over.getResult(0), a.output->get(),
                              at);
    }
    for (Value partial : partials)
      memref::DeallocOp::create(rewriter, loc, partial);
  }
  rewriter.eraseOp(generic);
}

struct KilnLowerColumnReductionsPass
    : kiln::impl::KilnLowerColumnReductionsBase<KilnLowerColumnReductionsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<std::pair<linalg::GenericOp, unsigned>> matches;
    getOperation().walk([&](linalg::GenericOp generic) {
      if (std::optional<unsigned> column = findColumnDim(generic))
        matches.push_back({generic, *column});
    });
    IRRewriter rewriter(&getContext());
    for (auto [generic, column] : matches)
      lowerColumnReduction(rewriter, generic, column, vectorWidth, interleave);
  }
};

} // namespace
