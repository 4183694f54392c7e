//===- AdjointBuilder.cpp - adjoint accumulation for reverse sweeps -------===//

#include "AutodiffInternals.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;
using namespace kiln;

bool AdjointBuilder::needsAdjoint(Operation *op, unsigned index) const {
  return isDifferentiableOperand(op, index) &&
         activity.isActive(op->getOperand(index));
}

void AdjointBuilder::add(Value v, Value contribution) {
  auto [it, inserted] = adjoints.try_emplace(v, contribution);
  if (!inserted)
    it->second =
        AddOp::create(builder, contribution.getLoc(), it->second, contribution);
}

void AdjointBuilder::addSlice(Value v, SliceOp slice, Value ct) {
  slices[v].push_back({llvm::to_vector(slice.getOffsets()),
                       llvm::to_vector(slice.getResolvedSizes()), ct});
}

Value AdjointBuilder::splat(Location loc, RankedTensorType type, double value,
                            Value like) {
  auto elementType = cast<FloatType>(type.getElementType());
  if (type.hasStaticShape())
    return ConstantOp::create(
        builder, loc, type,
        DenseElementsAttr::get(type, FloatAttr::get(elementType, value)));
  // Constants are static: a scalar, broadcast to the dynamic shape.
  auto scalarType = RankedTensorType::get({}, elementType);
  Value scalar = ConstantOp::create(
      builder, loc, scalarType,
      DenseElementsAttr::get(scalarType, FloatAttr::get(elementType, value)));
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d))
      sizes.push_back(tensor::DimOp::create(builder, loc, like, d));
  return BroadcastInDimOp::create(builder, loc, type, scalar, sizes,
                                  builder.getDenseI64ArrayAttr({}));
}

Value AdjointBuilder::zeros(Location loc, RankedTensorType type, Value like) {
  return splat(loc, type, 0.0, like);
}

FailureOr<Value> AdjointBuilder::take(Value v, Location loc) {
  Value result = adjoints.lookup(v);
  adjoints.erase(v);
  auto it = slices.find(v);
  if (it == slices.end())
    return result;
  SmallVector<SliceContribution> parts = std::move(it->second);
  slices.erase(it);
  FailureOr<Value> joined = joinSlices(v, loc, parts);
  if (failed(joined))
    return failure();
  if (!result)
    return *joined;
  return AddOp::create(builder, loc, result, *joined).getResult();
}

/// The dims in which a slice at `offsets` of `sizes` does not cover all of
/// `shape`.
static SmallVector<int64_t> getSlicedDims(ArrayRef<int64_t> shape,
                                          ArrayRef<int64_t> offsets,
                                          ArrayRef<int64_t> sizes) {
  SmallVector<int64_t> dims;
  for (auto [d, offset, size] : llvm::enumerate(offsets, sizes))
    if (offset != 0 || size != shape[d])
      dims.push_back(d);
  return dims;
}

Value AdjointBuilder::padSlice(Location loc, Value v,
                               const SliceContribution &part) {
  auto type = cast<RankedTensorType>(v.getType());
  Value current = part.ct;
  for (int64_t d : getSlicedDims(type.getShape(), part.offsets, part.sizes)) {
    auto currentType = cast<RankedTensorType>(current.getType());
    int64_t offset = part.offsets[d];
    SmallVector<Value> pieces;
    auto gap = [&](int64_t size) {
      SmallVector<int64_t> shape(currentType.getShape());
      shape[d] = size;
      pieces.push_back(zeros(loc, currentType.clone(shape), current));
    };
    if (offset > 0)
      gap(offset);
    pieces.push_back(current);
    if (type.isDynamicDim(d)) {
      // Part of a dynamic dim: the zeros after it are as many as the primal
      // has beyond the slice's end, counted at run time.
      Value end =
          arith::ConstantIndexOp::create(builder, loc, offset + part.sizes[d]);
      Value after = arith::SubIOp::create(
          builder, loc, tensor::DimOp::create(builder, loc, v, d), end);
      SmallVector<int64_t> shape(currentType.getShape());
      shape[d] = ShapedType::kDynamic;
      auto gapType = currentType.clone(shape);
      auto elementType = cast<FloatType>(type.getElementType());
      auto scalarType = RankedTensorType::get({}, elementType);
      Value scalar = ConstantOp::create(
          builder, loc, scalarType,
          DenseElementsAttr::get(scalarType, FloatAttr::get(elementType, 0.0)));
      SmallVector<Value> sizes;
      for (int64_t i = 0; i < gapType.getRank(); ++i)
        if (gapType.isDynamicDim(i))
          sizes.push_back(i == d
                              ? after
                              : tensor::DimOp::create(builder, loc, current, i)
                                    .getResult());
      pieces.push_back(
          BroadcastInDimOp::create(builder, loc, gapType, scalar, sizes,
                                   builder.getDenseI64ArrayAttr({})));
    } else if (int64_t after = type.getDimSize(d) - offset - part.sizes[d];
               after > 0) {
      gap(after);
    }
    SmallVector<int64_t> shape(currentType.getShape());
    shape[d] = type.getDimSize(d);
    current = ConcatOp::create(builder, loc, currentType.clone(shape), pieces,
                               builder.getI64IntegerAttr(d));
  }
  return current;
}

FailureOr<Value> AdjointBuilder::joinSlices(Value v, Location loc,
                                            ArrayRef<SliceContribution> parts) {
  auto type = cast<RankedTensorType>(v.getType());
  // Parts of a dynamic dim are padded one by one (the zeros after each
  // counted at run time), then summed.
  bool slicesDynamicDim = false;
  for (const SliceContribution &part : parts)
    for (int64_t d : getSlicedDims(type.getShape(), part.offsets, part.sizes))
      slicesDynamicDim |= type.isDynamicDim(d);

  // Chunks along one dim that do not overlap: one concat, zeros only in the
  // gaps.
  std::optional<int64_t> commonDim;
  bool singleDim = true;
  for (const SliceContribution &part : parts) {
    SmallVector<int64_t> dims =
        getSlicedDims(type.getShape(), part.offsets, part.sizes);
    if (dims.size() != 1 || (commonDim && *commonDim != dims.front())) {
      singleDim = false;
      break;
    }
    commonDim = dims.front();
  }
  if (singleDim && commonDim && !slicesDynamicDim) {
    int64_t d = *commonDim;
    SmallVector<SliceContribution> sorted(parts);
    llvm::stable_sort(sorted, [&](const auto &a, const auto &b) {
      return a.offsets[d] < b.offsets[d];
    });
    bool disjoint = true;
    for (size_t i = 1; i < sorted.size(); ++i)
      disjoint &= sorted[i].offsets[d] >=
                  sorted[i - 1].offsets[d] + sorted[i - 1].sizes[d];
    if (disjoint) {
      SmallVector<Value> pieces;
      int64_t position = 0;
      auto gap = [&](int64_t size) {
        SmallVector<int64_t> shape(type.getShape());
        shape[d] = size;
        pieces.push_back(zeros(loc, type.clone(shape), v));
      };
      for (const SliceContribution &part : sorted) {
        int64_t offset = part.offsets[d];
        if (offset > position)
          gap(offset - position);
        pieces.push_back(part.ct);
        position = offset + part.sizes[d];
      }
      if (position < type.getDimSize(d))
        gap(type.getDimSize(d) - position);
      if (pieces.size() == 1)
        return pieces.front();
      return ConcatOp::create(builder, loc, type, pieces,
                              builder.getI64IntegerAttr(d))
          .getResult();
    }
  }

  // Otherwise pad each part to the full shape and sum.
  Value sum;
  for (const SliceContribution &part : parts) {
    Value padded = padSlice(loc, v, part);
    sum = sum ? AddOp::create(builder, loc, sum, padded).getResult() : padded;
  }
  return sum;
}
