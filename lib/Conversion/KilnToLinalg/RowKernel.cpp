//===- RowKernel.cpp - a row group as one row-resident kernel -------------===//
//
// A row group (-kiln-fuse) reduces rows of its domain D = K x T (the first
// k dims index the rows, the rest are a row) and reads the results back:
// softmax's max and sum, LayerNorm's mean and variance. It becomes one
// kernel of several loop nests, all tagged with one `kiln.kernel_id`:
//
// - one nest per phase: the reductions whose inputs need p - 1 earlier
//   reductions form phase p, a generic over D whose row dims are reduced
//   into K-shaped accumulators;
// - a nest over D for the group's results of D's shape;
// - a nest over K for its results computed from row values alone.
//
// A nest recomputes what it needs of the rows from the group's inputs
// (exp(x - max) in softmax's sum and again in its result), and reads the
// earlier phases' row values: nothing of D's shape is stored but the
// results. -kiln-fuse-row-nests then runs the nests row by row, so that a
// row is read while it is in cache.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"

using namespace mlir;
using namespace kiln;

namespace {

class RowKernelBuilder {
public:
  explicit RowKernelBuilder(FusionGroupOp group) : group(group) {}

  /// Checks that the group is a row group this lowering handles, assigns
  /// the phases and plans every nest's leaves.
  LogicalResult plan(MLIRContext *ctx);

  /// Emits the nests; the group's replacements in `results`.
  void build(RewriterBase &rewriter, int64_t kernelId,
             SmallVectorImpl<Value> &results);

private:
  /// One loop nest: over the domain, or over the rows (`overRows`). A
  /// phase nest reduces `values` into row accumulators; a result nest
  /// writes them (the group's results at `resultIndices`).
  struct Nest {
    bool overRows = false;
    /// The phase (1-based) of a reduction nest; 0 for a result nest, which
    /// may read every phase's row values.
    int64_t phase = 0;
    SmallVector<Operation *> reductions;
    SmallVector<Value> values;
    SmallVector<int64_t> resultIndices;
    /// Leaves: keys (in-group values), the tensors read (null for a
    /// reduction's row values, known once its nest is built) and maps.
    SmallVector<Value> leafKeys, leafTensors;
    SmallVector<AffineMap> leafMaps;
    llvm::DenseMap<Value, unsigned> leafOf;
    llvm::DenseMap<Value, Value> scalars;
  };

  Value outerValue(Value inner) {
    auto arg = dyn_cast<BlockArgument>(inner);
    if (arg && arg.getOwner() == &group.getBody().front())
      return group.getInputs()[arg.getArgNumber()];
    return nullptr;
  }
  bool isRowShaped(Value v) {
    return cast<RankedTensorType>(v.getType()).getShape() ==
           ArrayRef<int64_t>(domain).take_front(k);
  }
  void addLeaf(Nest &nest, Value key, Value tensor, AffineMap map);
  /// The map that reads a row-shaped tensor in `nest`: the nest's first k
  /// loops.
  AffineMap rowMap(const Nest &nest, MLIRContext *ctx) const;
  /// Registers the leaves `v` needs in `nest`.
  LogicalResult collect(MLIRContext *ctx, Nest &nest, Value v);
  /// The scalar of `v` in a nest's body.
  Value emit(OpBuilder &b, Location loc, Nest &nest, Value v,
             ValueRange leafArgs);

  FusionGroupOp group;
  SmallVector<int64_t> domain;
  int64_t k = 0;
  llvm::DenseMap<Operation *, int64_t> phaseOf;
  std::vector<Nest> nests;
  /// Each reduction's row values, once its nest is built.
  llvm::DenseMap<Value, Value> rowResults;
  llvm::DenseMap<Operation *, ScalarLowering> lowerings;
};

} // namespace

LogicalResult RowKernelBuilder::plan(MLIRContext *ctx) {
  Block &body = group.getBody().front();
  // The domain and row rank: those of the reductions, all equal, one of
  // them read in the group.
  bool readBack = false;
  for (Operation &op : body.without_terminator()) {
    if (!isa<ReduceSumOp, ReduceMaxOp>(op))
      continue;
    int64_t rank = getRowReductionRank(&op);
    auto type = cast<RankedTensorType>(op.getOperand(0).getType());
    if (rank == 0 || !type.hasStaticShape() ||
        !(type.getElementType().isF32() || type.getElementType().isF64()))
      return failure();
    SmallVector<int64_t> shape(type.getShape());
    if (k != 0 && (rank != k || shape != domain))
      return failure();
    k = rank;
    domain = shape;
    readBack |= llvm::any_of(
        op.getUsers(), [](Operation *user) { return !isa<YieldOp>(user); });
  }
  if (!readBack)
    return failure();
  // Every op: a row reduction, a broadcast of an input or of row values
  // along the rows, or an elementwise op of the domain's or the rows'
  // shape. A reduction's phase: how many reductions lead to it.
  llvm::DenseMap<Value, int64_t> depth;
  int64_t numPhases = 0;
  for (Operation &op : body.without_terminator()) {
    int64_t d = 0;
    for (Value operand : op.getOperands())
      d = std::max(d, depth.lookup(operand));
    auto type = cast<RankedTensorType>(op.getResult(0).getType());
    if (!type.hasStaticShape())
      return failure();
    if (isa<ReduceSumOp, ReduceMaxOp>(op)) {
      phaseOf[&op] = ++d;
      numPhases = std::max(numPhases, d);
    } else if (auto broadcast = dyn_cast<BroadcastInDimOp>(op)) {
      // To the domain, or an input to the rows' shape (a scale per row).
      if (type.getShape() != ArrayRef<int64_t>(domain) &&
          !(isRowShaped(op.getResult(0)) && outerValue(broadcast.getOperand())))
        return failure();
      if (!outerValue(broadcast.getOperand())) {
        // Row values read back along the rows.
        ArrayRef<int64_t> dims = broadcast.getDims();
        if (static_cast<int64_t>(dims.size()) != k ||
            !isRowShaped(broadcast.getOperand()))
          return failure();
        for (auto [i, dim] : llvm::enumerate(dims))
          if (dim != static_cast<int64_t>(i))
            return failure();
      }
    } else if (auto iota = dyn_cast<IotaOp>(op)) {
      // Its loop index, computed in the body: over the domain, or over the
      // rows along a row dim.
      if (!iota.getSizes().empty() ||
          (type.getShape() != ArrayRef<int64_t>(domain) &&
           !isRowShaped(op.getResult(0))))
        return failure();
    } else {
      FailureOr<ScalarLowering> lowering = getScalarLowering(&op);
      if (failed(lowering) || (type.getShape() != ArrayRef<int64_t>(domain) &&
                               !isRowShaped(op.getResult(0))))
        return failure();
      lowerings.try_emplace(&op, std::move(*lowering));
    }
    depth[op.getResult(0)] = d;
  }

  // The phase nests, in order.
  nests.resize(numPhases);
  for (auto [p, nest] : llvm::enumerate(nests))
    nest.phase = static_cast<int64_t>(p) + 1;
  for (Operation &op : body.without_terminator())
    if (int64_t phase = phaseOf.lookup(&op)) {
      Nest &nest = nests[phase - 1];
      nest.reductions.push_back(&op);
      nest.values.push_back(op.getOperand(0));
      if (failed(collect(ctx, nest, op.getOperand(0))))
        return failure();
    }
  // The result nests: the domain's shape, then the rows' (row values that
  // are not reductions' own).
  auto yield = cast<YieldOp>(body.getTerminator());
  for (bool overRows : {false, true}) {
    Nest nest;
    nest.overRows = overRows;
    for (auto [index, value] : llvm::enumerate(yield.getValues())) {
      if (outerValue(value) ||
          (!isRowShaped(value) &&
           cast<RankedTensorType>(value.getType()).getShape() !=
               ArrayRef<int64_t>(domain)))
        return failure();
      Operation *def = value.getDefiningOp();
      if (isRowShaped(value) != overRows || phaseOf.count(def))
        continue;
      nest.values.push_back(value);
      nest.resultIndices.push_back(static_cast<int64_t>(index));
      if (failed(collect(ctx, nest, value)))
        return failure();
    }
    if (!nest.values.empty())
      nests.push_back(std::move(nest));
  }
  // linalg derives the loop bounds from the operands' shapes: a phase
  // whose leaves are all broadcast along the reduced dims (a sum of a
  // broadcast) has no extent for them.
  for (const Nest &nest : nests) {
    if (nest.phase == 0)
      continue;
    for (int64_t d = k, rank = domain.size(); d < rank; ++d)
      if (llvm::none_of(nest.leafMaps,
                        [&](AffineMap map) { return map.isFunctionOfDim(d); }))
        return failure();
  }
  return success();
}

void RowKernelBuilder::addLeaf(Nest &nest, Value key, Value tensor,
                               AffineMap map) {
  if (nest.leafOf.try_emplace(key, nest.leafKeys.size()).second) {
    nest.leafKeys.push_back(key);
    nest.leafTensors.push_back(tensor);
    nest.leafMaps.push_back(map);
  }
}

AffineMap RowKernelBuilder::rowMap(const Nest &nest, MLIRContext *ctx) const {
  int64_t loops = nest.overRows ? k : static_cast<int64_t>(domain.size());
  SmallVector<AffineExpr> exprs;
  for (int64_t d = 0; d < k; ++d)
    exprs.push_back(getAffineDimExpr(d, ctx));
  return AffineMap::get(loops, 0, exprs, ctx);
}

LogicalResult RowKernelBuilder::collect(MLIRContext *ctx, Nest &nest, Value v) {
  if (nest.leafOf.count(v) || nest.scalars.count(v))
    return success();
  int64_t rank = domain.size();
  if (Value outer = outerValue(v)) {
    auto type = cast<RankedTensorType>(outer.getType());
    if (getSplatValue(outer)) {
      nest.scalars[v] = nullptr;
    } else if (!type.hasStaticShape()) {
      return failure();
    } else if (isRowShaped(v)) {
      addLeaf(nest, v, outer, rowMap(nest, ctx));
    } else {
      if (nest.overRows || type.getShape() != ArrayRef<int64_t>(domain))
        return failure();
      addLeaf(nest, v, outer, AffineMap::getMultiDimIdentityMap(rank, ctx));
    }
    return success();
  }
  Operation *op = v.getDefiningOp();
  if (int64_t phase = phaseOf.lookup(op)) {
    // An earlier phase's row values (a result nest reads every phase's).
    if (nest.phase != 0 && phase >= nest.phase)
      return failure();
    addLeaf(nest, v, nullptr, rowMap(nest, ctx));
    return success();
  }
  if (auto broadcast = dyn_cast<BroadcastInDimOp>(op)) {
    Value outer = outerValue(broadcast.getOperand());
    // An input broadcast to the rows' shape reads only row dims, which
    // every nest has.
    bool toRows = isRowShaped(v) && outer;
    if (nest.overRows && !toRows)
      return failure();
    if (!outer)
      return collect(ctx, nest, broadcast.getOperand()); // row values
    if (getSplatValue(outer)) {
      nest.scalars[v] = nullptr;
      return success();
    }
    // The input read with a projected map; a size-1 dim that expands is
    // read at 0.
    auto type = cast<RankedTensorType>(outer.getType());
    if (!type.hasStaticShape())
      return failure();
    SmallVector<AffineExpr> exprs;
    for (auto [i, d] : llvm::enumerate(broadcast.getDims())) {
      bool expands = type.getDimSize(i) == 1 && domain[d] != 1;
      exprs.push_back(expands ? getAffineConstantExpr(0, ctx)
                              : getAffineDimExpr(d, ctx));
    }
    addLeaf(nest, v, outer,
            AffineMap::get(nest.overRows ? k : rank, 0, exprs, ctx));
    return success();
  }
  if (nest.overRows && !isRowShaped(v))
    return failure();
  for (Value operand : op->getOperands())
    if (failed(collect(ctx, nest, operand)))
      return failure();
  nest.scalars[v] = nullptr; // emitted in the body
  return success();
}

Value RowKernelBuilder::emit(OpBuilder &b, Location loc, Nest &nest, Value v,
                             ValueRange leafArgs) {
  auto leaf = nest.leafOf.find(v);
  if (leaf != nest.leafOf.end())
    return leafArgs[leaf->second];
  Value &cached = nest.scalars[v];
  if (cached)
    return cached;
  Value outer = outerValue(v);
  Operation *op = outer ? nullptr : v.getDefiningOp();
  if (auto broadcast = dyn_cast_or_null<BroadcastInDimOp>(op)) {
    outer = outerValue(broadcast.getOperand());
    if (!outer) {
      Value row = emit(b, loc, nest, broadcast.getOperand(), leafArgs);
      return nest.scalars[v] = row;
    }
  }
  if (outer) { // a splat constant
    Type elementType = cast<RankedTensorType>(v.getType()).getElementType();
    Value constant = arith::ConstantOp::create(
        b, loc, b.getFloatAttr(elementType, *getSplatValue(outer)));
    return nest.scalars[v] = constant;
  }
  if (auto iota = dyn_cast<IotaOp>(op))
    return nest.scalars[v] = emitIotaElement(b, loc, iota, 0);
  SmallVector<Value> args;
  for (Value operand : op->getOperands())
    args.push_back(emit(b, loc, nest, operand, leafArgs));
  Value scalar = lowerings.at(op)(b, loc, args);
  return nest.scalars[v] = scalar;
}

void RowKernelBuilder::build(RewriterBase &rewriter, int64_t kernelId,
                             SmallVectorImpl<Value> &results) {
  Location loc = group.getLoc();
  MLIRContext *ctx = rewriter.getContext();
  int64_t rank = domain.size();
  auto tag = [&](Operation *op) {
    op->setAttr(KilnDialect::KernelIdAttrHelper::getNameStr(),
                rewriter.getI64IntegerAttr(kernelId));
  };
  for (Nest &nest : nests) {
    // A phase reduces the rows into accumulators (the identity first); a
    // result nest writes fresh tensors.
    int64_t loops = nest.overRows ? k : rank;
    SmallVector<Value> inits;
    SmallVector<std::optional<ReductionKind>> kinds;
    SmallVector<AffineMap> maps;
    for (auto [i, key] : llvm::enumerate(nest.leafKeys)) {
      if (!nest.leafTensors[i])
        nest.leafTensors[i] = rowResults.at(key);
      maps.push_back(nest.leafMaps[i]);
    }
    SmallVector<utils::IteratorType> iterators(loops,
                                               utils::IteratorType::parallel);
    if (nest.phase > 0) {
      for (int64_t d = k; d < rank; ++d)
        iterators[d] = utils::IteratorType::reduction;
      for (Operation *reduction : nest.reductions) {
        ReductionKind kind = isa<ReduceSumOp>(reduction) ? ReductionKind::Sum
                                                         : ReductionKind::Max;
        kinds.push_back(kind);
        Value init = createFilledAccumulator(
            rewriter, loc, kind,
            cast<RankedTensorType>(reduction->getResult(0).getType()), {});
        tag(init.getDefiningOp());
        inits.push_back(init);
        maps.push_back(rowMap(nest, ctx));
      }
    } else {
      for (Value value : nest.values) {
        kinds.push_back(std::nullopt);
        inits.push_back(createDestination(
            rewriter, loc, cast<RankedTensorType>(value.getType()), {}));
        maps.push_back(AffineMap::getMultiDimIdentityMap(loops, ctx));
      }
    }
    SmallVector<Type> types;
    for (Value init : inits)
      types.push_back(init.getType());
    auto generic = linalg::GenericOp::create(
        rewriter, loc, types, nest.leafTensors, inits, maps, iterators,
        [&](OpBuilder &b, Location nestedLoc, ValueRange args) {
          ValueRange leafArgs = args.take_front(nest.leafTensors.size());
          SmallVector<Value> yielded;
          for (auto [i, value] : llvm::enumerate(nest.values)) {
            Value scalar = emit(b, nestedLoc, nest, value, leafArgs);
            if (kinds[i])
              scalar = combineReduction(b, nestedLoc, *kinds[i],
                                        args[leafArgs.size() + i], scalar);
            yielded.push_back(scalar);
          }
          linalg::YieldOp::create(b, nestedLoc, yielded);
        });
    tag(generic);
    for (auto [i, reduction] : llvm::enumerate(nest.reductions))
      rowResults[reduction->getResult(0)] = generic.getResult(i);
    for (auto [i, index] : llvm::enumerate(nest.resultIndices))
      results[index] = generic.getResult(i);
  }
  // Reductions that are results themselves.
  auto yield = cast<YieldOp>(group.getBody().front().getTerminator());
  for (auto [index, value] : llvm::enumerate(yield.getValues()))
    if (!results[index])
      results[index] = rowResults.at(value);
}

LogicalResult kiln::lowerRowGroupToKernel(RewriterBase &rewriter,
                                          FusionGroupOp group,
                                          int64_t &nextKernelId) {
  RowKernelBuilder builder(group);
  if (failed(builder.plan(rewriter.getContext())))
    return failure();
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(group);
  SmallVector<Value> results(group.getNumResults());
  builder.build(rewriter, nextKernelId++, results);
  rewriter.replaceOp(group, results);
  return success();
}
