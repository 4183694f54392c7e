//===- FusionGroup.cpp - a kiln.fusion_group as one linalg.generic --------===//
//
// A group whose ops share one iteration domain D becomes a single parallel
// linalg.generic over D with one output per yielded value:
// - a group input read by an elementwise op is an input of shape D (an
//   extract_slice view when read at an offset);
// - a slice moves the point where its operand is evaluated: a slice of an
//   input is a view, a slice of an in-group producer evaluates that
//   producer at the sliced indices;
// - a broadcast of an input is an input with a projected indexing map;
// - a splat constant input is a scalar constant in the body;
// - a concat exit gets one output per part, written into a view of one
//   destination and inserted back at the same place, which bufferizes to
//   in-place writes into one buffer.
// - a reduction over leading dims of the domain that only the group's
//   result reads (a bias gradient) is a reduction epilogue: an output
//   indexed by the kept dims, accumulated from the identity, with those
//   dims of the generic iterated as reductions.
// A group whose outputs have several shapes (a concat exit of unequal
// parts) becomes one generic per shape, a loop nest each, all tagged with
// one `kiln.kernel_id` so that -kiln-outline-kernels makes them one kernel;
// so are an epilogue's generic and the fill of its accumulator.
// A domain may have dynamic dims (a batch): inputs, slices and concat
// parts then take those dims whole (slicing and concatenating along static
// dims only), their sizes are read from an input (tensor.dim) or from a
// broadcast outside the group (groups take no size operands), which the
// nest reads through, projecting its operand.
// Groups that do not fit (other reductions, reductions beside unequal
// parts, slices of a dynamic dim) are lowered op by op instead.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "kiln/Conversion/Passes.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/DenseMap.h"

#include <map>

using namespace mlir;
using namespace kiln;

namespace {

using Offsets = SmallVector<int64_t>;

/// Reads of values from outside the group: an input tensor (already a view
/// of the right region) with the map that reads it over the domain.
struct Leaf {
  Value tensor;
  AffineMap map;
};

/// What the loop nests of one group produce: a value per group result, and
/// each concat exit's destination with the parts written so far.
struct GroupResults {
  SmallVector<Value> replacements;
  llvm::DenseMap<Operation *, Value> destinations;
};

/// One loop nest (a linalg.generic) over `domain`, computing the group's
/// outputs of that shape.
class KernelBuilder {
public:
  KernelBuilder(FusionGroupOp group, ArrayRef<int64_t> domain,
                bool onlyOwnDomain)
      : group(group), domain(domain.begin(), domain.end()),
        onlyOwnDomain(onlyOwnDomain) {}

  /// Collects the leaves of every output; fails when the group does not fit.
  /// With `onlyOwnDomain`, outputs of other shapes are left to other nests.
  LogicalResult plan(OpBuilder &b);

  /// Emits the generic, recording what it computes in `results`.
  linalg::GenericOp build(RewriterBase &rewriter, GroupResults &results);

  /// The group's ops this nest evaluates.
  const llvm::SmallPtrSetImpl<Operation *> &getComputedOps() const {
    return computed;
  }

  /// The ops besides the generic that build() made and that run with it
  /// (the fills of reduction accumulators).
  ArrayRef<Operation *> getInitOps() const { return initOps; }

private:
  struct Output {
    Value value;           // the in-group value computed over the domain
    int64_t concat = -1;   // index into concats when this is a part
    int64_t concatDim = 0; // where it goes in that concat
    int64_t concatOffset = 0;
    Operation *reduction = nullptr; // the reduce_sum/max it is the input of
  };

  LogicalResult collect(OpBuilder &b, Value v, const Offsets &offsets);
  /// A leaf reading the operand of `broadcast` (outside the group, to a
  /// domain with dynamic dims) through the broadcast's projection.
  LogicalResult collectOuterBroadcast(OpBuilder &b, BroadcastInDimOp broadcast,
                                      const Offsets &offsets,
                                      std::pair<void *, Offsets> key);
  Value emit(OpBuilder &b, Location loc, Value v, const Offsets &offsets,
             ValueRange leafArgs);
  Value outerValue(Value inner) {
    auto arg = dyn_cast<BlockArgument>(inner);
    if (arg && arg.getOwner() == &group.getBody().front())
      return group.getInputs()[arg.getArgNumber()];
    return nullptr;
  }

  FusionGroupOp group;
  SmallVector<int64_t> domain;
  bool onlyOwnDomain;
  SmallVector<Leaf> leaves;
  std::map<std::pair<void *, Offsets>, unsigned> leafIndex;
  std::map<std::pair<void *, Offsets>, Value> scalars;
  SmallVector<Output> outputs;
  llvm::SmallPtrSet<Operation *, 16> computed;
  /// How each computed op builds its scalar.
  llvm::DenseMap<Operation *, ScalarLowering> lowerings;
  SmallVector<Operation *> initOps;
  SmallVector<ConcatOp> concats;
  // How many leading dims the reduction epilogues reduce (0: none).
  int64_t reducedDims = 0;
  /// Where each dynamic dim of the domain has its size: a tensor outside
  /// the group with that dim (tensor.dim), or an index value (a broadcast's
  /// size operand).
  llvm::DenseMap<int64_t, std::pair<Value, int64_t>> dynamicSizeOf;
  bool isDynamic() const { return llvm::any_of(domain, ShapedType::isDynamic); }
  /// The domain's dynamic sizes, in order (build()).
  SmallVector<Value> getDynamicSizes(OpBuilder &b, Location loc);
  // Which group result each output, or concat, produces.
  SmallVector<int64_t> resultOfOutput, resultOfConcat;
};

ReductionKind reductionKindOf(Operation *reduction) {
  return isa<ReduceSumOp>(reduction) ? ReductionKind::Sum : ReductionKind::Max;
}

/// For a reduce_sum or reduce_max that can end a kernel: how many leading
/// dims it reduces (dims 0..k-1, some dim kept, f32 or f64, a static input,
/// read only by the group's result). 0 when it cannot.
int64_t getLeadingReducedDims(Operation *reduction) {
  ArrayRef<int64_t> dims;
  if (auto sum = dyn_cast<ReduceSumOp>(reduction))
    dims = sum.getDims();
  else if (auto max = dyn_cast<ReduceMaxOp>(reduction))
    dims = max.getDims();
  else
    return 0;
  auto type = cast<RankedTensorType>(reduction->getOperand(0).getType());
  Type element = type.getElementType();
  // The reduced dims may be dynamic (a batch); the kept ones are static.
  bool keptStatic = true;
  for (int64_t d = static_cast<int64_t>(dims.size()); d < type.getRank(); ++d)
    keptStatic &= !type.isDynamicDim(d);
  if (!keptStatic || !(element.isF32() || element.isF64()) || dims.empty() ||
      static_cast<int64_t>(dims.size()) >= type.getRank())
    return 0;
  for (auto [i, d] : llvm::enumerate(dims))
    if (d != static_cast<int64_t>(i))
      return 0;
  if (!llvm::all_of(reduction->getUsers(),
                    [](Operation *user) { return isa<YieldOp>(user); }))
    return 0;
  return static_cast<int64_t>(dims.size());
}

LogicalResult KernelBuilder::collect(OpBuilder &b, Value v,
                                     const Offsets &offsets) {
  auto key = std::make_pair(v.getAsOpaquePointer(), offsets);
  if (leafIndex.count(key) || scalars.count(key))
    return success();
  MLIRContext *ctx = b.getContext();
  Location loc = group.getLoc();
  int64_t rank = domain.size();
  if (Value outer = outerValue(v)) {
    if (getSplatValue(outer)) {
      scalars[key] = nullptr; // a constant in the body
      return success();
    }
    auto type = cast<RankedTensorType>(outer.getType());
    if (isDynamic()) {
      // A broadcast outside the group (to dynamic sizes, which groups do
      // not take) is read through: its operand, projected.
      if (auto broadcast = outer.getDefiningOp<BroadcastInDimOp>())
        return collectOuterBroadcast(b, broadcast, offsets, key);
      // Dynamic sizes: the input is read whole along its dynamic dims (the
      // domain's), and sliced (at `offsets`) along the static ones.
      if (type.getRank() != rank)
        return failure();
      bool sliced = false;
      SmallVector<OpFoldResult> offs, sizes, strides;
      for (int64_t d = 0; d < rank; ++d) {
        if (ShapedType::isDynamic(domain[d]) != type.isDynamicDim(d) ||
            (ShapedType::isDynamic(domain[d]) && offsets[d] != 0))
          return failure();
        strides.push_back(b.getIndexAttr(1));
        offs.push_back(b.getIndexAttr(offsets[d]));
        if (ShapedType::isDynamic(domain[d])) {
          dynamicSizeOf.try_emplace(d, outer, d);
          sizes.push_back(tensor::DimOp::create(b, loc, outer, d).getResult());
          continue;
        }
        sliced |= offsets[d] != 0 || type.getDimSize(d) != domain[d];
        sizes.push_back(b.getIndexAttr(domain[d]));
      }
      Value view = outer;
      if (sliced)
        view =
            tensor::ExtractSliceOp::create(b, loc, outer, offs, sizes, strides);
      leafIndex[key] = leaves.size();
      leaves.push_back({view, AffineMap::getMultiDimIdentityMap(rank, ctx)});
      return success();
    }
    // A view of the input over the domain at `offsets`.
    if (type.getRank() != rank || !type.hasStaticShape())
      return failure();
    Value view = outer;
    if (llvm::any_of(offsets, [](int64_t o) { return o != 0; }) ||
        type.getShape() != ArrayRef<int64_t>(domain)) {
      SmallVector<OpFoldResult> offs, sizes, strides;
      for (int64_t d = 0; d < rank; ++d) {
        offs.push_back(b.getIndexAttr(offsets[d]));
        sizes.push_back(b.getIndexAttr(domain[d]));
        strides.push_back(b.getIndexAttr(1));
      }
      view =
          tensor::ExtractSliceOp::create(b, loc, outer, offs, sizes, strides);
    }
    leafIndex[key] = leaves.size();
    leaves.push_back({view, AffineMap::getMultiDimIdentityMap(rank, ctx)});
    return success();
  }
  Operation *op = v.getDefiningOp();
  if (!op)
    return failure();
  // With dynamic sizes, a slice takes the dynamic dims whole.
  if (auto slice = dyn_cast<SliceOp>(op); slice && isDynamic())
    for (auto [d, size] : llvm::enumerate(domain))
      if (ShapedType::isDynamic(size) && slice.getOffsets()[d] != 0)
        return failure();
  if (auto slice = dyn_cast<SliceOp>(op)) {
    Offsets inner(offsets);
    for (int64_t d = 0; d < rank; ++d)
      inner[d] += slice.getOffsets()[d];
    return collect(b, slice.getOperand(), inner);
  }
  if (auto broadcast = dyn_cast<BroadcastInDimOp>(op)) {
    Value outer = outerValue(broadcast.getOperand());
    if (!outer)
      return failure();
    if (getSplatValue(outer)) {
      scalars[key] = nullptr;
      return success();
    }
    auto type = cast<RankedTensorType>(outer.getType());
    if (!type.hasStaticShape() || !broadcast.getType().hasStaticShape())
      return failure();
    // Slice the operand to the region the domain reads, then project.
    SmallVector<OpFoldResult> offs, sizes, strides;
    SmallVector<AffineExpr> exprs;
    SmallVector<int64_t> viewShape;
    for (auto [k, d] : llvm::enumerate(broadcast.getDims())) {
      bool expands =
          type.getDimSize(k) == 1 && broadcast.getType().getDimSize(d) != 1;
      int64_t size = expands ? 1 : domain[d];
      offs.push_back(b.getIndexAttr(expands ? 0 : offsets[d]));
      sizes.push_back(b.getIndexAttr(size));
      strides.push_back(b.getIndexAttr(1));
      viewShape.push_back(size);
      exprs.push_back(expands ? getAffineConstantExpr(0, ctx)
                              : getAffineDimExpr(d, ctx));
    }
    Value view = outer;
    if (ArrayRef<int64_t>(viewShape) != type.getShape() ||
        llvm::any_of(
            offs, [](OpFoldResult o) { return getConstantIntValue(o) != 0; }))
      view =
          tensor::ExtractSliceOp::create(b, loc, outer, offs, sizes, strides);
    leafIndex[key] = leaves.size();
    leaves.push_back({view, AffineMap::get(rank, 0, exprs, ctx)});
    return success();
  }
  if (auto iota = dyn_cast<IotaOp>(op)) {
    // Its loop index: computed in the body, at `offsets`.
    if (iota.getType().getRank() != rank || !iota.getSizes().empty())
      return failure();
    scalars[key] = nullptr;
    computed.insert(op);
    return success();
  }
  FailureOr<ScalarLowering> lowering = getScalarLowering(op);
  if (failed(lowering))
    return failure();
  auto shape = cast<RankedTensorType>(op->getResult(0).getType()).getShape();
  if (shape.size() != domain.size())
    return failure();
  for (Value operand : op->getOperands())
    if (failed(collect(b, operand, offsets)))
      return failure();
  scalars[key] = nullptr; // emitted in the body
  computed.insert(op);
  lowerings.try_emplace(op, std::move(*lowering));
  return success();
}

LogicalResult
KernelBuilder::collectOuterBroadcast(OpBuilder &b, BroadcastInDimOp broadcast,
                                     const Offsets &offsets,
                                     std::pair<void *, Offsets> key) {
  MLIRContext *ctx = broadcast.getContext();
  Location loc = group.getLoc();
  int64_t rank = domain.size();
  RankedTensorType result = broadcast.getType();
  auto operandType = cast<RankedTensorType>(broadcast.getOperand().getType());
  if (result.getRank() != rank || !operandType.hasStaticShape())
    return failure();
  // The domain reads the broadcast whole along its dynamic dims and at
  // `offsets` along the static ones.
  for (int64_t d = 0; d < rank; ++d)
    if (result.isDynamicDim(d) != ShapedType::isDynamic(domain[d]) ||
        (result.isDynamicDim(d) && offsets[d] != 0))
      return failure();
  // The operand, sliced to the region the domain reads and projected; a
  // dim of size 1 that the broadcast may expand is read at 0 (also right
  // where it does not: then the index is 0 anyway).
  SmallVector<AffineExpr> exprs;
  SmallVector<OpFoldResult> offs, sizes, strides;
  SmallVector<int64_t> viewShape;
  bool sliced = false;
  for (auto [k, d] : llvm::enumerate(broadcast.getDims())) {
    bool expands = operandType.getDimSize(k) == 1 && result.getDimSize(d) != 1;
    if (!expands && ShapedType::isDynamic(domain[d]))
      return failure(); // a static operand dim that a dynamic one reads
    int64_t size = expands ? 1 : domain[d];
    int64_t offset = expands ? 0 : offsets[d];
    sliced |= offset != 0 || size != operandType.getDimSize(k);
    offs.push_back(b.getIndexAttr(offset));
    sizes.push_back(b.getIndexAttr(size));
    strides.push_back(b.getIndexAttr(1));
    viewShape.push_back(size);
    exprs.push_back(expands ? getAffineConstantExpr(0, ctx)
                            : getAffineDimExpr(d, ctx));
  }
  Value view = broadcast.getOperand();
  if (sliced)
    view = tensor::ExtractSliceOp::create(b, loc, view, offs, sizes, strides);
  // The broadcast's size operands are its result's dynamic sizes.
  unsigned next = 0;
  for (int64_t d = 0; d < rank; ++d)
    if (result.isDynamicDim(d))
      dynamicSizeOf.try_emplace(d, broadcast.getSizes()[next++], -1);
  leafIndex[key] = leaves.size();
  leaves.push_back({view, AffineMap::get(rank, 0, exprs, ctx)});
  return success();
}

SmallVector<Value> KernelBuilder::getDynamicSizes(OpBuilder &b, Location loc) {
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < static_cast<int64_t>(domain.size()); ++d) {
    if (!ShapedType::isDynamic(domain[d]))
      continue;
    auto [source, dim] = dynamicSizeOf.at(d);
    sizes.push_back(
        dim < 0 ? source
                : tensor::DimOp::create(b, loc, source, dim).getResult());
  }
  return sizes;
}

Value KernelBuilder::emit(OpBuilder &b, Location loc, Value v,
                          const Offsets &offsets, ValueRange leafArgs) {
  auto key = std::make_pair(v.getAsOpaquePointer(), offsets);
  auto leaf = leafIndex.find(key);
  if (leaf != leafIndex.end())
    return leafArgs[leaf->second];
  Value &cached = scalars[key];
  if (cached)
    return cached;
  Value outer = outerValue(v);
  Operation *op = outer ? nullptr : v.getDefiningOp();
  if (auto broadcast = dyn_cast_or_null<BroadcastInDimOp>(op))
    outer = outerValue(broadcast.getOperand());
  if (outer) { // a splat constant
    Type elementType = cast<RankedTensorType>(v.getType()).getElementType();
    cached = arith::ConstantOp::create(
        b, loc, b.getFloatAttr(elementType, *getSplatValue(outer)));
    return cached;
  }
  if (auto slice = dyn_cast<SliceOp>(op)) {
    Offsets inner(offsets);
    for (size_t d = 0; d < inner.size(); ++d)
      inner[d] += slice.getOffsets()[d];
    return cached = emit(b, loc, slice.getOperand(), inner, leafArgs);
  }
  if (auto iota = dyn_cast<IotaOp>(op))
    return cached = emitIotaElement(b, loc, iota, offsets[iota.getDim()]);
  SmallVector<Value> args;
  for (Value operand : op->getOperands())
    args.push_back(emit(b, loc, operand, offsets, leafArgs));
  return cached = lowerings.at(op)(b, loc, args);
}

LogicalResult KernelBuilder::plan(OpBuilder &b) {
  auto yield = cast<YieldOp>(group.getBody().front().getTerminator());
  Offsets zero(domain.size(), 0);
  for (auto [index, value] : llvm::enumerate(yield.getValues())) {
    if (auto concat = value.getDefiningOp<ConcatOp>()) {
      // With dynamic sizes, along a static dim; the others are the domain's.
      if (isDynamic()) {
        int64_t dim = static_cast<int64_t>(concat.getDim());
        RankedTensorType type = concat.getType();
        if (type.isDynamicDim(dim))
          return failure();
        for (int64_t d = 0; d < type.getRank(); ++d)
          if (d != dim && type.getDimSize(d) != domain[d])
            return failure();
      }
      int64_t offset = 0;
      bool hasPart = false;
      for (Value part : concat.getInputs()) {
        auto type = cast<RankedTensorType>(part.getType());
        int64_t start = offset;
        offset += type.getDimSize(concat.getDim());
        if (type.getShape() != ArrayRef<int64_t>(domain)) {
          if (onlyOwnDomain)
            continue;
          return failure();
        }
        hasPart = true;
        resultOfOutput.push_back(-1);
        outputs.push_back({part, static_cast<int64_t>(concats.size()),
                           static_cast<int64_t>(concat.getDim()), start});
        if (failed(collect(b, part, zero)))
          return failure();
      }
      if (hasPart) {
        concats.push_back(concat);
        resultOfConcat.push_back(static_cast<int64_t>(index));
      }
      continue;
    }
    if (Operation *reduction = value.getDefiningOp();
        reduction && isa<ReduceSumOp, ReduceMaxOp>(reduction)) {
      Value input = reduction->getOperand(0);
      int64_t leading = getLeadingReducedDims(reduction);
      if (leading == 0 || (reducedDims != 0 && reducedDims != leading) ||
          cast<RankedTensorType>(input.getType()).getShape() !=
              ArrayRef<int64_t>(domain) ||
          outerValue(input))
        return failure();
      reducedDims = leading;
      resultOfOutput.push_back(static_cast<int64_t>(index));
      Output out{input};
      out.reduction = reduction;
      outputs.push_back(out);
      if (failed(collect(b, input, zero)))
        return failure();
      continue;
    }
    auto type = cast<RankedTensorType>(value.getType());
    if (onlyOwnDomain && type.getShape() != ArrayRef<int64_t>(domain))
      continue;
    if (type.getShape() != ArrayRef<int64_t>(domain) || outerValue(value))
      return failure();
    resultOfOutput.push_back(static_cast<int64_t>(index));
    outputs.push_back({value});
    if (failed(collect(b, value, zero)))
      return failure();
  }
  // Every dynamic dim's size is read from something outside the group.
  for (int64_t d = 0; d < static_cast<int64_t>(domain.size()); ++d)
    if (ShapedType::isDynamic(domain[d]) && !dynamicSizeOf.count(d))
      return failure();
  // linalg derives the loop bounds from the operands' shapes: with a
  // reduction, some operand must span the whole domain (a broadcast input
  // reduced over its new dims has no extent for them).
  if (reducedDims > 0 &&
      llvm::none_of(
          leaves, [](const Leaf &leaf) { return leaf.map.isPermutation(); }) &&
      llvm::all_of(outputs, [](const Output &out) { return out.reduction; }))
    return failure();
  return success();
}

linalg::GenericOp KernelBuilder::build(RewriterBase &rewriter,
                                       GroupResults &results) {
  Location loc = group.getLoc();
  MLIRContext *ctx = rewriter.getContext();
  int64_t rank = domain.size();
  SmallVector<Value> inputs, inits;
  SmallVector<AffineMap> maps;
  for (const Leaf &leaf : leaves) {
    inputs.push_back(leaf.tensor);
    maps.push_back(leaf.map);
  }
  // Each concat is one destination, made by the group's first nest; its
  // parts are written into views of it and inserted back at the same
  // places, which bufferizes in place.
  SmallVector<Value> destinations;
  for (ConcatOp concat : concats) {
    Value &dest = results.destinations[concat];
    if (!dest) {
      // Its dynamic dims are the domain's (plan()).
      RankedTensorType type = concat.getType();
      dest = createDestination(rewriter, loc, type,
                               getDynamicSizes(rewriter, loc));
    }
    destinations.push_back(dest);
  }
  auto partPlace = [&](const Output &out) {
    SmallVector<OpFoldResult> offs(rank, rewriter.getIndexAttr(0)), sizes,
        strides(rank, rewriter.getIndexAttr(1));
    offs[out.concatDim] = rewriter.getIndexAttr(out.concatOffset);
    SmallVector<Value> dynamicSizes = getDynamicSizes(rewriter, loc);
    unsigned next = 0;
    for (int64_t d : domain)
      sizes.push_back(ShapedType::isDynamic(d)
                          ? OpFoldResult(dynamicSizes[next++])
                          : OpFoldResult(rewriter.getIndexAttr(d)));
    return std::make_tuple(offs, sizes, strides);
  };
  SmallVector<Type> resultTypes;
  for (const Output &out : outputs) {
    auto type = RankedTensorType::get(
        domain, cast<RankedTensorType>(out.value.getType()).getElementType());
    if (out.reduction) {
      // Indexed by the kept dims, starting from the reduction's identity.
      auto reducedType =
          cast<RankedTensorType>(out.reduction->getResult(0).getType());
      inits.push_back(createFilledAccumulator(
          rewriter, loc, reductionKindOf(out.reduction), reducedType, {}));
      initOps.push_back(inits.back().getDefiningOp());
      resultTypes.push_back(reducedType);
      SmallVector<AffineExpr> kept;
      for (int64_t d = reducedDims; d < rank; ++d)
        kept.push_back(getAffineDimExpr(d, ctx));
      maps.push_back(AffineMap::get(rank, 0, kept, ctx));
      continue;
    }
    if (out.concat >= 0) {
      auto [offs, sizes, strides] = partPlace(out);
      inits.push_back(tensor::ExtractSliceOp::create(
          rewriter, loc, type, destinations[out.concat], offs, sizes, strides));
    } else {
      inits.push_back(createDestination(rewriter, loc, type,
                                        getDynamicSizes(rewriter, loc)));
    }
    resultTypes.push_back(type);
    maps.push_back(AffineMap::getMultiDimIdentityMap(rank, ctx));
  }
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  if (reducedDims > 0) {
    // Loop over the kept dims outside and the reduced ones inside, so that
    // the parallel loop is outermost (one parallel region, not one per
    // reduced index): domain dim d is loop dim (d - k) mod rank.
    SmallVector<AffineExpr> loopDimOf;
    for (int64_t d = 0; d < rank; ++d)
      loopDimOf.push_back(getAffineDimExpr(
          d < reducedDims ? rank - reducedDims + d : d - reducedDims, ctx));
    for (AffineMap &map : maps)
      map = map.replaceDimsAndSymbols(loopDimOf, {}, rank, 0);
    for (int64_t d = rank - reducedDims; d < rank; ++d)
      iterators[d] = utils::IteratorType::reduction;
  }
  Offsets zero(rank, 0);
  auto generic = linalg::GenericOp::create(
      rewriter, loc, resultTypes, inputs, inits, maps, iterators,
      [&](OpBuilder &b, Location nestedLoc, ValueRange args) {
        ValueRange leafArgs = args.take_front(leaves.size());
        SmallVector<Value> results;
        for (auto [i, out] : llvm::enumerate(outputs)) {
          Value v = emit(b, nestedLoc, out.value, zero, leafArgs);
          if (out.reduction)
            v = combineReduction(b, nestedLoc, reductionKindOf(out.reduction),
                                 args[leaves.size() + i], v);
          results.push_back(v);
        }
        linalg::YieldOp::create(b, nestedLoc, results);
      });

  for (auto [i, out] : llvm::enumerate(outputs))
    if (resultOfOutput[i] >= 0)
      results.replacements[resultOfOutput[i]] = generic.getResult(i);
  for (auto [c, concat] : llvm::enumerate(concats)) {
    Value &dest = results.destinations[concat];
    for (auto [i, out] : llvm::enumerate(outputs)) {
      if (out.concat != static_cast<int64_t>(c))
        continue;
      auto [offs, sizes, strides] = partPlace(out);
      dest = tensor::InsertSliceOp::create(rewriter, loc, generic.getResult(i),
                                           dest, offs, sizes, strides);
    }
    results.replacements[resultOfConcat[c]] = dest;
  }
  return generic;
}

/// The ops of `group` that are evaluated at the indices of slices: each is
/// read only by slices or by elementwise ops that are themselves such ops
/// (`chunk(a + b + c)` reads both adds through the chunk's slices).
static llvm::SmallPtrSet<Operation *, 16>
getOpsReadThroughSlices(FusionGroupOp group) {
  llvm::SmallPtrSet<Operation *, 16> sliced;
  Block &body = group.getBody().front();
  for (Operation &op : llvm::reverse(body.without_terminator())) {
    bool throughSlices =
        !op.use_empty() && llvm::all_of(op.getUsers(), [&](Operation *user) {
          return isa<SliceOp>(user) ||
                 (sliced.contains(user) && isElementwiseKilnOp(user));
        });
    if (throughSlices)
      sliced.insert(&op);
  }
  return sliced;
}

/// The one domain the group's ops share, if any.
std::optional<SmallVector<int64_t>> getGroupDomain(FusionGroupOp group) {
  std::optional<SmallVector<int64_t>> domain;
  llvm::SmallPtrSet<Operation *, 16> sliced = getOpsReadThroughSlices(group);
  for (Operation &op : group.getBody().front().without_terminator()) {
    // Values read only through slices take the slices' domain.
    if (sliced.contains(&op))
      continue;
    SmallVector<int64_t> shape;
    if (auto concat = dyn_cast<ConcatOp>(op))
      shape.assign(cast<RankedTensorType>(concat.getInputs().front().getType())
                       .getShape()
                       .begin(),
                   cast<RankedTensorType>(concat.getInputs().front().getType())
                       .getShape()
                       .end());
    else if (isa<ReduceSumOp, ReduceMaxOp>(op)) {
      // An epilogue iterates its input's domain.
      if (getLeadingReducedDims(&op) == 0)
        return std::nullopt;
      auto type = cast<RankedTensorType>(op.getOperand(0).getType());
      shape.assign(type.getShape().begin(), type.getShape().end());
    } else {
      // Dynamic dims are one size where the shapes agree (the entry's
      // shape checks make elementwise operands agree at run time).
      auto type = cast<RankedTensorType>(op.getResult(0).getType());
      shape.assign(type.getShape().begin(), type.getShape().end());
    }
    if (domain && *domain != shape)
      return std::nullopt;
    domain = shape;
  }
  return domain;
}

/// The output shapes of a group that has several (a concat exit of unequal
/// parts), in order of first appearance; none when it has fewer than two,
/// or outputs that one nest per shape cannot compute (dynamic shapes,
/// reductions).
std::optional<SmallVector<SmallVector<int64_t>>>
getNestDomains(FusionGroupOp group) {
  SmallVector<SmallVector<int64_t>> domains;
  auto add = [&](Type type) {
    auto ranked = cast<RankedTensorType>(type);
    if (!ranked.hasStaticShape() || ranked.getRank() == 0)
      return false;
    SmallVector<int64_t> shape(ranked.getShape());
    if (!llvm::is_contained(domains, shape))
      domains.push_back(shape);
    return true;
  };
  auto yield = cast<YieldOp>(group.getBody().front().getTerminator());
  for (Value value : yield.getValues()) {
    Operation *def = value.getDefiningOp();
    if (def && isa<ReduceSumOp, ReduceMaxOp>(def))
      return std::nullopt;
    if (auto concat = dyn_cast_or_null<ConcatOp>(def)) {
      for (Value part : concat.getInputs())
        if (!add(part.getType()))
          return std::nullopt;
    } else if (!add(value.getType())) {
      return std::nullopt;
    }
  }
  if (domains.size() < 2)
    return std::nullopt;
  return domains;
}

} // namespace

LogicalResult kiln::lowerFusionGroupToKernel(RewriterBase &rewriter,
                                             FusionGroupOp group,
                                             int64_t &nextKernelId) {
  if (succeeded(lowerRowGroupToKernel(rewriter, group, nextKernelId)))
    return success();
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(group);
  GroupResults results;
  results.replacements.resize(group.getNumResults());
  // Planning creates views; on failure they are left unused and removed by
  // the canonicalizer.
  std::optional<SmallVector<int64_t>> domain = getGroupDomain(group);
  if (domain && !domain->empty()) {
    KernelBuilder builder(group, *domain, /*onlyOwnDomain=*/false);
    if (failed(builder.plan(rewriter)))
      return failure();
    linalg::GenericOp generic = builder.build(rewriter, results);
    // A reduction epilogue's accumulator is filled in the same kernel.
    if (!builder.getInitOps().empty()) {
      IntegerAttr id = rewriter.getI64IntegerAttr(nextKernelId++);
      generic->setAttr(KilnDialect::KernelIdAttrHelper::getNameStr(), id);
      for (Operation *init : builder.getInitOps())
        init->setAttr(KilnDialect::KernelIdAttrHelper::getNameStr(), id);
    }
    rewriter.replaceOp(group, results.replacements);
    return success();
  }
  std::optional<SmallVector<SmallVector<int64_t>>> domains =
      getNestDomains(group);
  if (!domains)
    return failure();
  // Each op runs in one nest: a value that two nests read would be
  // computed twice, and is better a buffer (op by op).
  std::vector<KernelBuilder> builders;
  llvm::SmallPtrSet<Operation *, 16> computed;
  for (ArrayRef<int64_t> nestDomain : *domains) {
    builders.emplace_back(group, nestDomain, /*onlyOwnDomain=*/true);
    if (failed(builders.back().plan(rewriter)))
      return failure();
    for (Operation *op : builders.back().getComputedOps())
      if (!computed.insert(op).second)
        return failure();
  }
  IntegerAttr id = rewriter.getI64IntegerAttr(nextKernelId++);
  for (KernelBuilder &builder : builders)
    builder.build(rewriter, results)
        ->setAttr(KilnDialect::KernelIdAttrHelper::getNameStr(), id);
  rewriter.replaceOp(group, results.replacements);
  return success();
}
