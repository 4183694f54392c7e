//===- FoldContractionLayouts.cpp - -kiln-fold-contraction-layouts --------===//
//
// A BLAS contraction (a linalg.generic with a kiln_rt_ matmul library_call;
// loops [batch..., m, n, k]) reads and writes strided views, so it needs no
// transposed copy of an operand. Multi-head attention splits and merges its
// heads with reshape -> transpose -> reshape around its batched GEMMs, and
// each of those would otherwise be a copy kernel. Folded here, on tensors:
//   - a linalg.transpose operand, or the one user of the result, becomes a
//     permuted indexing map;
//   - a collapse_shape operand that merges dims into a batch dim, or an
//     expand_shape of the result that splits a batch dim, splits that
//     batch loop; the other operands are expanded to match (views).
// Each matrix keeps a unit stride (its innermost dim is one of its two
// matrix dims), at most two batch loops remain (kiln_rt_batch2_matmul_*),
// and results are folded only into fresh zero-filled outputs.
// -kiln-linalg-to-runtime-calls then hands the runtime each operand as a
// view in the entry point's dim order.
//
//===----------------------------------------------------------------------===//

#include "Support/PassStatistics.h"
#include "kiln/Codegen/Common/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace kiln {
#define GEN_PASS_DEF_KILNFOLDCONTRACTIONLAYOUTS
#include "kiln/Codegen/Common/Passes.h.inc"
} // namespace kiln

#include "kiln/Codegen/Common/PassStatistics.h.inc"

using namespace mlir;

namespace {

constexpr unsigned kMaxBatchLoops = 2;
constexpr llvm::StringLiteral kCallPrefixes[] = {
    "kiln_rt_matmul_", "kiln_rt_batch_matmul_", "kiln_rt_batch2_matmul_"};

/// The number of batch loops of a BLAS contraction on static tensors whose
/// maps are permutations of all but one loop; nothing for any other op.
std::optional<unsigned> getNumBatchLoops(linalg::GenericOp op) {
  std::optional<StringRef> name = op.getLibraryCall();
  if (!name || !op.hasPureTensorSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1)
    return std::nullopt;
  unsigned loops = op.getNumLoops();
  if (loops < 3 || loops - 3 > kMaxBatchLoops ||
      !name->starts_with(kCallPrefixes[loops - 3]))
    return std::nullopt;
  for (AffineMap map : op.getIndexingMapsArray())
    if (map.getNumResults() != loops - 1 || !map.isProjectedPermutation())
      return std::nullopt;
  for (Value operand : op->getOperands()) {
    auto type = dyn_cast<RankedTensorType>(operand.getType());
    if (!type || !type.hasStaticShape())
      return std::nullopt;
  }
  return loops - 3;
}

/// `name` for a contraction with `numBatch` batch loops.
std::string renameCall(StringRef name, unsigned numBatch) {
  for (StringRef prefix : kCallPrefixes)
    if (name.starts_with(prefix))
      return (kCallPrefixes[numBatch] + name.drop_front(prefix.size())).str();
  return name.str();
}

/// Whether operand `index` (A, B, C) keeps a unit stride under `map`: its
/// innermost dim is one of its two matrix dims.
bool keepsUnitStride(AffineMap map, unsigned index, unsigned numBatch) {
  unsigned m = numBatch, n = numBatch + 1, k = numBatch + 2;
  unsigned inner = map.getDimPosition(map.getNumResults() - 1);
  unsigned rows[] = {m, k, m}, cols[] = {k, n, n};
  return inner == rows[index] || inner == cols[index];
}

/// The zero that fills `init`, when it is a fill of a fresh tensor.
Value getZeroFillValue(Value init) {
  auto fill = init.getDefiningOp<linalg::FillOp>();
  if (!fill ||
      !fill.getOutputs()[0].getDefiningOp<bufferization::AllocTensorOp>())
    return nullptr;
  Value value = fill.getInputs()[0];
  auto constant = value.getDefiningOp<arith::ConstantOp>();
  auto attr = constant ? dyn_cast<FloatAttr>(constant.getValue()) : FloatAttr();
  return attr && attr.getValue().isZero() ? value : nullptr;
}

/// A fresh tensor of `type` filled with `zero`.
Value createZeroed(OpBuilder &b, Location loc, RankedTensorType type,
                   Value zero) {
  Value empty =
      bufferization::AllocTensorOp::create(b, loc, type, ValueRange{});
  return linalg::FillOp::create(b, loc, ValueRange{zero}, ValueRange{empty})
      .getResult(0);
}

/// `op` with its operands, maps and library call replaced (the body moved).
linalg::GenericOp rebuild(PatternRewriter &rewriter, linalg::GenericOp op,
                          ValueRange inputs, Value init,
                          ArrayRef<AffineMap> maps, unsigned numBatch) {
  SmallVector<utils::IteratorType> iterators(maps.front().getNumDims(),
                                             utils::IteratorType::parallel);
  iterators.back() = utils::IteratorType::reduction;
  auto generic = linalg::GenericOp::create(rewriter, op.getLoc(),
                                           TypeRange{init.getType()}, inputs,
                                           ValueRange{init}, maps, iterators);
  rewriter.inlineRegionBefore(op.getRegion(), generic.getRegion(),
                              generic.getRegion().end());
  generic.setLibraryCallAttr(
      rewriter.getStringAttr(renameCall(*op.getLibraryCall(), numBatch)));
  return generic;
}

/// `op`'s maps and operand shapes with batch loop `loop` split into loops
/// of `sizes`; nothing when an operand does not read that loop.
struct SplitPlan {
  SmallVector<AffineMap> maps;
  SmallVector<RankedTensorType> types; // per operand, expanded
  SmallVector<SmallVector<ReassociationIndices>> reassociations;
};

std::optional<SplitPlan> planBatchSplit(linalg::GenericOp op, unsigned loop,
                                        ArrayRef<int64_t> sizes) {
  MLIRContext *ctx = op.getContext();
  unsigned extra = sizes.size() - 1;
  unsigned loops = op.getNumLoops() + extra;
  SplitPlan plan;
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    auto type = cast<RankedTensorType>(operand.get().getType());
    SmallVector<AffineExpr> exprs;
    SmallVector<int64_t> shape;
    SmallVector<ReassociationIndices> reassociation;
    bool readsLoop = false;
    for (unsigned i = 0; i < map.getNumResults(); ++i) {
      unsigned dim = map.getDimPosition(i);
      ReassociationIndices group;
      if (dim == loop) {
        readsLoop = true;
        for (unsigned j = 0; j < sizes.size(); ++j) {
          group.push_back(exprs.size());
          exprs.push_back(getAffineDimExpr(loop + j, ctx));
          shape.push_back(sizes[j]);
        }
      } else {
        group.push_back(exprs.size());
        exprs.push_back(getAffineDimExpr(dim > loop ? dim + extra : dim, ctx));
        shape.push_back(type.getDimSize(i));
      }
      reassociation.push_back(group);
    }
    if (!readsLoop)
      return std::nullopt;
    plan.maps.push_back(AffineMap::get(loops, 0, exprs, ctx));
    plan.types.push_back(type.clone(shape));
    plan.reassociations.push_back(std::move(reassociation));
  }
  return plan;
}

/// Whether every operand keeps a unit stride under `plan`.
bool keepsUnitStrides(const SplitPlan &plan, unsigned numBatch) {
  return llvm::all_of(llvm::seq<unsigned>(0, 3), [&](unsigned i) {
    return keepsUnitStride(plan.maps[i], i, numBatch);
  });
}

/// `op`'s inputs expanded per `plan`, input `keep` replaced by `kept`.
SmallVector<Value> expandInputs(PatternRewriter &rewriter, linalg::GenericOp op,
                                const SplitPlan &plan, int keep, Value kept) {
  SmallVector<Value> inputs;
  for (OpOperand *operand : op.getDpsInputOperands()) {
    unsigned i = operand->getOperandNumber();
    inputs.push_back(static_cast<int>(i) == keep
                         ? kept
                         : tensor::ExpandShapeOp::create(
                               rewriter, op.getLoc(), plan.types[i],
                               operand->get(), plan.reassociations[i])
                               .getResult());
  }
  return inputs;
}

/// A counter of folded layout ops, shared by the patterns.
struct FoldCounter {
  int64_t folded = 0;
};

/// A pattern on contractions that counts its folds.
struct ContractionPattern : OpRewritePattern<linalg::GenericOp> {
  ContractionPattern(MLIRContext *ctx, FoldCounter &counter)
      : OpRewritePattern(ctx), counter(counter) {}

  LogicalResult folded() const {
    ++counter.folded;
    return success();
  }

  FoldCounter &counter;
};

/// What a fold of a contraction's result needs: its batch loop count, its
/// one user (of type OpTy) and the zero its fresh init is filled with.
template <typename OpTy> struct ResultFold {
  unsigned numBatch;
  OpTy user;
  Value zero;
};

template <typename OpTy>
std::optional<ResultFold<OpTy>> matchResultFold(linalg::GenericOp op) {
  std::optional<unsigned> numBatch = getNumBatchLoops(op);
  Value result = op->getResult(0);
  if (!numBatch || !result.hasOneUse())
    return std::nullopt;
  auto user = dyn_cast<OpTy>(*result.user_begin());
  Value zero = getZeroFillValue(op.getDpsInitOperand(0)->get());
  if (!user || user->getOperand(0) != result || !zero)
    return std::nullopt;
  return ResultFold<OpTy>{*numBatch, user, zero};
}

/// transpose(x) read by a contraction: the contraction reads x.
struct FoldTransposedInput : ContractionPattern {
  using ContractionPattern::ContractionPattern;

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    std::optional<unsigned> numBatch = getNumBatchLoops(op);
    if (!numBatch)
      return failure();
    for (OpOperand *operand : op.getDpsInputOperands()) {
      auto transpose = operand->get().getDefiningOp<linalg::TransposeOp>();
      if (!transpose)
        continue;
      // result[i] = input[perm[i]]: input dim perm[i] reads map result i.
      AffineMap map = op.getMatchingIndexingMap(operand);
      ArrayRef<int64_t> perm = transpose.getPermutation();
      SmallVector<AffineExpr> exprs(map.getNumResults());
      for (auto [i, p] : llvm::enumerate(perm))
        exprs[p] = map.getResult(i);
      AffineMap permuted =
          AffineMap::get(map.getNumDims(), 0, exprs, op.getContext());
      unsigned index = operand->getOperandNumber();
      if (!keepsUnitStride(permuted, index, *numBatch))
        continue;
      SmallVector<AffineMap> maps = op.getIndexingMapsArray();
      maps[index] = permuted;
      rewriter.modifyOpInPlace(op, [&] {
        operand->set(transpose.getInput());
        op.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
      });
      return folded();
    }
    return failure();
  }
};

/// A contraction whose one user is transpose(result), into a fresh zero
/// init: the contraction writes the transposed layout itself.
struct FoldTransposedResult : ContractionPattern {
  using ContractionPattern::ContractionPattern;

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    auto match = matchResultFold<linalg::TransposeOp>(op);
    if (!match)
      return failure();
    auto [numBatch, transpose, zero] = *match;
    // result'[i] = result[perm[i]].
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    AffineMap out = maps.back();
    SmallVector<AffineExpr> exprs;
    for (int64_t p : transpose.getPermutation())
      exprs.push_back(out.getResult(p));
    maps.back() = AffineMap::get(out.getNumDims(), 0, exprs, op.getContext());
    if (!keepsUnitStride(maps.back(), 2, numBatch))
      return failure();
    rewriter.setInsertionPoint(transpose);
    Value init = createZeroed(
        rewriter, op.getLoc(),
        cast<RankedTensorType>(transpose->getResult(0).getType()), zero);
    linalg::GenericOp generic =
        rebuild(rewriter, op, op.getDpsInputs(), init, maps, numBatch);
    rewriter.replaceOp(transpose, generic->getResults());
    rewriter.eraseOp(op);
    return folded();
  }
};

/// The one multi-dim group of `reassociation`, or nothing.
std::optional<unsigned>
getOnlySplitGroup(ArrayRef<ReassociationIndices> reassociation) {
  std::optional<unsigned> found;
  for (auto [i, group] : llvm::enumerate(reassociation)) {
    if (group.size() == 1)
      continue;
    if (found)
      return std::nullopt;
    found = i;
  }
  return found;
}

/// collapse_shape(x) read by a contraction, merging dims into one batch
/// dim: that batch loop is split and the contraction reads x.
struct FoldCollapsedInput : ContractionPattern {
  using ContractionPattern::ContractionPattern;

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    std::optional<unsigned> numBatch = getNumBatchLoops(op);
    if (!numBatch)
      return failure();
    Value zero = getZeroFillValue(op.getDpsInitOperand(0)->get());
    if (!zero)
      return failure();
    for (OpOperand *operand : op.getDpsInputOperands()) {
      auto collapse = operand->get().getDefiningOp<tensor::CollapseShapeOp>();
      if (!collapse)
        continue;
      SmallVector<ReassociationIndices> reassociation =
          collapse.getReassociationIndices();
      std::optional<unsigned> group = getOnlySplitGroup(reassociation);
      if (!group)
        continue;
      AffineMap map = op.getMatchingIndexingMap(operand);
      unsigned loop = map.getDimPosition(*group);
      ArrayRef<int64_t> sourceShape = collapse.getSrcType().getShape();
      SmallVector<int64_t> sizes;
      for (int64_t dim : reassociation[*group])
        sizes.push_back(sourceShape[dim]);
      unsigned newBatch = *numBatch + sizes.size() - 1;
      if (loop >= *numBatch || newBatch > kMaxBatchLoops)
        continue;
      std::optional<SplitPlan> plan = planBatchSplit(op, loop, sizes);
      if (!plan || !keepsUnitStrides(*plan, newBatch))
        continue;
      unsigned index = operand->getOperandNumber();
      if (plan->types[index] != collapse.getSrcType())
        continue;
      SmallVector<Value> inputs =
          expandInputs(rewriter, op, *plan, index, collapse.getSrc());
      Value init =
          createZeroed(rewriter, op.getLoc(), plan->types.back(), zero);
      linalg::GenericOp generic =
          rebuild(rewriter, op, inputs, init, plan->maps, newBatch);
      Value collapsed = tensor::CollapseShapeOp::create(
          rewriter, op.getLoc(), generic->getResult(0),
          plan->reassociations.back());
      rewriter.replaceOp(op, collapsed);
      return folded();
    }
    return failure();
  }
};

/// A contraction whose one user is expand_shape(result), splitting one
/// batch dim: that batch loop is split and the contraction writes the
/// expanded shape.
struct FoldExpandedResult : ContractionPattern {
  using ContractionPattern::ContractionPattern;

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    auto match = matchResultFold<tensor::ExpandShapeOp>(op);
    if (!match)
      return failure();
    auto [numBatch, expand, zero] = *match;
    SmallVector<ReassociationIndices> reassociation =
        expand.getReassociationIndices();
    std::optional<unsigned> group = getOnlySplitGroup(reassociation);
    if (!group)
      return failure();
    unsigned loop = op.getIndexingMapsArray().back().getDimPosition(*group);
    SmallVector<int64_t> sizes;
    for (int64_t dim : reassociation[*group])
      sizes.push_back(expand.getResultType().getDimSize(dim));
    unsigned newBatch = numBatch + sizes.size() - 1;
    if (loop >= numBatch || newBatch > kMaxBatchLoops)
      return failure();
    std::optional<SplitPlan> plan = planBatchSplit(op, loop, sizes);
    if (!plan || !keepsUnitStrides(*plan, newBatch) ||
        plan->types.back() != expand.getResultType())
      return failure();
    rewriter.setInsertionPoint(op);
    SmallVector<Value> inputs =
        expandInputs(rewriter, op, *plan, /*keep=*/-1, nullptr);
    Value init = createZeroed(rewriter, op.getLoc(), plan->types.back(), zero);
    linalg::GenericOp generic =
        rebuild(rewriter, op, inputs, init, plan->maps, newBatch);
    rewriter.replaceOp(expand, generic->getResults());
    rewriter.eraseOp(op);
    return folded();
  }
};

struct KilnFoldContractionLayoutsPass
    : kiln::impl::KilnFoldContractionLayoutsBase<
          KilnFoldContractionLayoutsPass> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    FoldCounter counter;
    patterns.add<FoldTransposedInput, FoldTransposedResult, FoldCollapsedInput,
                 FoldExpandedResult>(&getContext(), counter);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    kiln::addPassStatistic(*this, numFolded, counter.folded, kPassStatistics);
  }
};

} // namespace
