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

#include "Conversion/SerializeInnerLoops/RequestVectorization.h"
#include "kiln/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/DenseMap.h"

namespace kiln {
#define GEN_PASS_DEF_KILNLOWERCOLUMNREDUCTIONS
#include "kiln/Conversion/Passes.h.inc"
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
  // The body is cloned into plain loops: it may not ask for its indices.
  if (!generic.getBody()->getOps<linalg::IndexOp>().empty())
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

void lowerColumnReduction(RewriterBase &rewriter, linalg::GenericOp generic,
                          unsigned column, unsigned vectorWidth,
                          unsigned interleave) {
  Location loc = generic.getLoc();
  rewriter.setInsertionPoint(generic);
  SmallVector<int64_t> ranges = generic.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = generic.getIteratorTypesArray();
  int64_t block = chooseBlock(ranges[column], vectorWidth, interleave);
  bool oneBlock = block == ranges[column];
  // Index constants, each made once, ahead of the loops.
  llvm::DenseMap<int64_t, Value> constants;
  auto constant = [&](int64_t v) {
    Value &c = constants[v];
    if (!c)
      c = arith::ConstantIndexOp::create(rewriter, loc, v);
    return c;
  };
  for (int64_t v : {int64_t(0), int64_t(1), block})
    constant(v);
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
  SmallVector<Value> ivs(ranges.size());
  if (!parallelDims.empty()) {
    auto parallel = scf::ParallelOp::create(rewriter, loc, lower, upper, steps);
    for (auto [d, iv] : llvm::zip(parallelDims, parallel.getInductionVars()))
      ivs[d] = iv;
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

  // The reduction dims in their order, then the block's columns.
  for (auto [d, iterator] : llvm::enumerate(iterators)) {
    if (iterator != utils::IteratorType::reduction)
      continue;
    auto loop = scf::ForOp::create(rewriter, loc, constant(0),
                                   constant(ranges[d]), constant(1));
    ivs[d] = loop.getInductionVar();
    rewriter.setInsertionPointToStart(loop.getBody());
  }
  auto columns =
      scf::ForOp::create(rewriter, loc, blockStart, blockEnd, constant(1));
  ivs[column] = columns.getInductionVar();
  rewriter.setInsertionPointToStart(columns.getBody());

  // The body at this point, as linalg's loops run it: every operand the
  // body reads is loaded, every value it yields stored.
  auto indices = [&](OpOperand &operand) {
    SmallVector<Value> result;
    for (AffineExpr e : generic.getMatchingIndexingMap(&operand).getResults())
      result.push_back(isa<AffineDimExpr>(e)
                           ? ivs[cast<AffineDimExpr>(e).getPosition()]
                           : constant(cast<AffineConstantExpr>(e).getValue()));
    return result;
  };
  Block &body = generic.getRegion().front();
  IRMapping mapping;
  for (OpOperand &operand : generic->getOpOperands()) {
    BlockArgument arg = generic.getMatchingBlockArgument(&operand);
    if (!arg.use_empty())
      mapping.map(arg, memref::LoadOp::create(rewriter, loc, operand.get(),
                                              indices(operand)));
  }
  for (Operation &op : body.without_terminator())
    rewriter.clone(op, mapping);
  for (auto [output, value] : llvm::zip(generic.getDpsInitsMutable(),
                                        body.getTerminator()->getOperands()))
    memref::StoreOp::create(rewriter, loc, mapping.lookupOrDefault(value),
                            output.get(), indices(output));
  if (vectorWidth > 1)
    kiln::requestVectorization(columns, vectorWidth, interleave);
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
