//===- Indexing.cpp - iota, take, scatter_add, argmax, rng_uniform --------===//
//
// The ops of integer indices and random numbers, each lowered on its own:
// - iota, take and rng_uniform: one parallel linalg.generic over the
//   result, reading linalg.index (and, for take, the operand through
//   tensor.extract at a clamped index, the out-of-range value selected
//   after the read, so no read leaves the operand);
// - argmax: a linalg.generic reducing over `dim` into (best value, its
//   index), in increasing index order, so ties go to the first;
// - scatter_add: a copy of the operand, then one add per index in
//   row-major order (an scf.for over them), each into the slice of the
//   copy's buffer its index names, in place: the order the contract fixes,
//   the same bits every run. For the GPU (parallel-scatters), three
//   parallel kernels that make the same adds in the same order per element
//   (ParallelScatterAddLowering).
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Support/Philox.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace kiln;

namespace {

SmallVector<utils::IteratorType> allParallel(int64_t rank) {
  return SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel);
}

/// What an out-of-range index gives: NaN in a float, 0 (false) otherwise.
Value missingValue(OpBuilder &b, Location loc, Type type) {
  if (auto floatType = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(b, loc,
                                     b.getFloatAttr(floatType, std::nan("")));
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, 0));
}

struct IotaLowering : OpConversionPattern<IotaOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(IotaOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    Value init = createDestination(rewriter, loc, type, adaptor.getSizes());
    int64_t dim = op.getDim();
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, ValueRange{}, ValueRange{init},
        SmallVector<AffineMap>{rewriter.getMultiDimIdentityMap(type.getRank())},
        allParallel(type.getRank()),
        [&](OpBuilder &b, Location nestedLoc, ValueRange) {
          Value index = linalg::IndexOp::create(b, nestedLoc, dim);
          linalg::YieldOp::create(
              b, nestedLoc,
              indexToElement(b, nestedLoc, index, type.getElementType()));
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

struct TakeLowering : OpConversionPattern<TakeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(TakeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    Value operand = adaptor.getOperand();
    Value indices = adaptor.getIndices();
    auto operandType = cast<RankedTensorType>(operand.getType());
    auto indicesType = cast<RankedTensorType>(indices.getType());
    int64_t dim = op.getDim();
    int64_t indexRank = indicesType.getRank();
    int64_t rank = type.getRank();
    // The result's dynamic sizes: the operand's around `dim`, the
    // indices' in between.
    SmallVector<Value> dynamicSizes;
    for (int64_t d = 0; d < rank; ++d) {
      if (!type.isDynamicDim(d))
        continue;
      if (d < dim)
        dynamicSizes.push_back(
            tensor::DimOp::create(rewriter, loc, operand, d));
      else if (d < dim + indexRank)
        dynamicSizes.push_back(
            tensor::DimOp::create(rewriter, loc, indices, d - dim));
      else
        dynamicSizes.push_back(
            tensor::DimOp::create(rewriter, loc, operand, d - indexRank + 1));
    }
    Value init = createDestination(rewriter, loc, type, dynamicSizes);
    bool neverEmpty =
        !operandType.isDynamicDim(dim) && operandType.getDimSize(dim) > 0;

    SmallVector<AffineExpr> indexExprs;
    for (int64_t k = 0; k < indexRank; ++k)
      indexExprs.push_back(rewriter.getAffineDimExpr(dim + k));
    SmallVector<AffineMap> maps = {
        AffineMap::get(rank, 0, indexExprs, rewriter.getContext()),
        rewriter.getMultiDimIdentityMap(rank)};
    Type element = type.getElementType();
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, ValueRange{indices}, ValueRange{init},
        maps, allParallel(rank),
        [&](OpBuilder &b, Location nestedLoc, ValueRange args) {
          Value position = arith::IndexCastOp::create(
              b, nestedLoc, b.getIndexType(), args[0]);
          Value zero = arith::ConstantIndexOp::create(b, nestedLoc, 0);
          // Read in the body (a constant when static): kernels take
          // buffers, not sizes computed outside them.
          Value extent = tensor::DimOp::create(b, nestedLoc, operand, dim);
          Value inRange = arith::AndIOp::create(
              b, nestedLoc,
              arith::CmpIOp::create(b, nestedLoc, arith::CmpIPredicate::sge,
                                    position, zero),
              arith::CmpIOp::create(b, nestedLoc, arith::CmpIPredicate::slt,
                                    position, extent));
          Value clamped =
              arith::SelectOp::create(b, nestedLoc, inRange, position, zero);
          SmallVector<Value> coords;
          for (int64_t d = 0; d < dim; ++d)
            coords.push_back(linalg::IndexOp::create(b, nestedLoc, d));
          coords.push_back(clamped);
          for (int64_t d = dim + indexRank; d < rank; ++d)
            coords.push_back(linalg::IndexOp::create(b, nestedLoc, d));
          Value missing = missingValue(b, nestedLoc, element);
          Value result;
          if (neverEmpty) {
            // Index 0 exists: read there when out of range, then select.
            Value read =
                tensor::ExtractOp::create(b, nestedLoc, operand, coords);
            result =
                arith::SelectOp::create(b, nestedLoc, inRange, read, missing);
          } else {
            // An empty dim has no index to read at all.
            auto branch = scf::IfOp::create(
                b, nestedLoc, inRange,
                [&](OpBuilder &thenBuilder, Location thenLoc) {
                  Value read = tensor::ExtractOp::create(thenBuilder, thenLoc,
                                                         operand, coords);
                  scf::YieldOp::create(thenBuilder, thenLoc, read);
                },
                [&](OpBuilder &elseBuilder, Location elseLoc) {
                  scf::YieldOp::create(elseBuilder, elseLoc, missing);
                });
            result = branch.getResult(0);
          }
          linalg::YieldOp::create(b, nestedLoc, result);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

struct ArgmaxLowering : OpConversionPattern<ArgmaxOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ArgmaxOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getOperand();
    auto inputType = cast<RankedTensorType>(input.getType());
    RankedTensorType resultType = op.getType();
    int64_t dim = op.getDim();
    int64_t rank = inputType.getRank();
    Type element = inputType.getElementType();
    Type compute = getComputeType(element);

    SmallVector<Value> dynamicSizes;
    SmallVector<AffineExpr> kept;
    for (int64_t d = 0; d < rank; ++d) {
      if (d == dim)
        continue;
      kept.push_back(rewriter.getAffineDimExpr(d));
      if (inputType.isDynamicDim(d))
        dynamicSizes.push_back(tensor::DimOp::create(rewriter, loc, input, d));
    }
    // The best value so far starts below every value; its index at 0.
    Value best =
        createFilledAccumulator(rewriter, loc, ReductionKind::Max,
                                resultType.clone(compute), dynamicSizes);
    Value zeroIndex = arith::ConstantOp::create(
        rewriter, loc, rewriter.getIntegerAttr(resultType.getElementType(), 0));
    Value position =
        linalg::FillOp::create(rewriter, loc, ValueRange{zeroIndex},
                               ValueRange{createDestination(
                                   rewriter, loc, resultType, dynamicSizes)})
            .getResult(0);
    AffineMap keptMap = AffineMap::get(rank, 0, kept, rewriter.getContext());
    SmallVector<utils::IteratorType> iterators = allParallel(rank);
    iterators[dim] = utils::IteratorType::reduction;
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{best.getType(), position.getType()},
        ValueRange{input}, ValueRange{best, position},
        SmallVector<AffineMap>{rewriter.getMultiDimIdentityMap(rank), keptMap,
                               keptMap},
        iterators, [&](OpBuilder &b, Location nestedLoc, ValueRange args) {
          Value x = extendToCompute(b, nestedLoc, args[0]);
          Value current = args[1];
          Value take;
          if (isa<FloatType>(compute)) {
            // The first NaN is the maximum; otherwise the first largest.
            Value currentIsNan = arith::CmpFOp::create(
                b, nestedLoc, arith::CmpFPredicate::UNO, current, current);
            Value xWins = arith::CmpFOp::create(
                b, nestedLoc, arith::CmpFPredicate::UGT, x, current);
            Value one =
                arith::ConstantOp::create(b, nestedLoc, b.getBoolAttr(true));
            take = arith::AndIOp::create(
                b, nestedLoc,
                arith::XOrIOp::create(b, nestedLoc, currentIsNan, one), xWins);
          } else {
            take = arith::CmpIOp::create(b, nestedLoc,
                                         arith::CmpIPredicate::sgt, x, current);
          }
          Value index = indexToElement(
              b, nestedLoc, linalg::IndexOp::create(b, nestedLoc, dim),
              resultType.getElementType());
          linalg::YieldOp::create(
              b, nestedLoc,
              ValueRange{
                  arith::SelectOp::create(b, nestedLoc, take, x, current),
                  arith::SelectOp::create(b, nestedLoc, take, index, args[2])});
        });
    rewriter.replaceOp(op, generic.getResult(1));
    return success();
  }
};

struct RngUniformLowering : OpConversionPattern<RngUniformOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(RngUniformOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    int64_t rank = type.getRank();
    Value key = adaptor.getKey();
    Value init = createDestination(rewriter, loc, type, {});
    SmallVector<int64_t> strides(rank, 1);
    for (int64_t d = rank - 2; d >= 0; --d)
      strides[d] = strides[d + 1] * type.getDimSize(d + 1);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, ValueRange{}, ValueRange{init},
        SmallVector<AffineMap>{rewriter.getMultiDimIdentityMap(rank)},
        allParallel(rank), [&](OpBuilder &b, Location l, ValueRange) {
          Type i32 = b.getI32Type(), i64 = b.getI64Type();
          // The key is read in the body: a kernel takes buffers (a GPU
          // kernel no scalars), and the read is one load per element.
          auto read = [&](int64_t i) -> Value {
            Value at = arith::ConstantIndexOp::create(b, l, i);
            return tensor::ExtractOp::create(b, l, key, ValueRange{at});
          };
          Value seed = read(0), offset = read(1);
          auto c32 = [&](uint32_t v) -> Value {
            return arith::ConstantOp::create(b, l,
                                             b.getIntegerAttr(i32, int64_t(v)));
          };
          auto c64 = [&](int64_t v) -> Value {
            return arith::ConstantOp::create(b, l, b.getIntegerAttr(i64, v));
          };
          // The flat (row-major) index n.
          Value flat = arith::ConstantIndexOp::create(b, l, 0);
          for (int64_t d = 0; d < rank; ++d) {
            Value term = arith::MulIOp::create(
                b, l, linalg::IndexOp::create(b, l, d),
                arith::ConstantIndexOp::create(b, l, strides[d]));
            flat = arith::AddIOp::create(b, l, flat, term);
          }
          Value n = arith::IndexCastOp::create(b, l, i64, flat);
          Value counter = arith::AddIOp::create(
              b, l, offset, arith::ShRUIOp::create(b, l, n, c64(2)));
          Value word = arith::AndIOp::create(b, l, n, c64(3));
          auto low = [&](Value v) -> Value {
            return arith::TruncIOp::create(b, l, i32, v);
          };
          auto high = [&](Value v) -> Value {
            return low(arith::ShRUIOp::create(b, l, v, c64(32)));
          };
          Value c[4] = {low(counter), high(counter), c32(0), c32(0)};
          Value k[2] = {low(seed), high(seed)};
          for (int round = 0; round < philox::kRounds; ++round) {
            if (round > 0) {
              k[0] = arith::AddIOp::create(b, l, k[0], c32(philox::kWeyl0));
              k[1] = arith::AddIOp::create(b, l, k[1], c32(philox::kWeyl1));
            }
            auto p0 = arith::MulUIExtendedOp::create(
                b, l, c32(philox::kMultiplier0), c[0]);
            auto p1 = arith::MulUIExtendedOp::create(
                b, l, c32(philox::kMultiplier1), c[2]);
            Value next[4] = {
                arith::XOrIOp::create(
                    b, l, arith::XOrIOp::create(b, l, p1.getHigh(), c[1]),
                    k[0]),
                p1.getLow(),
                arith::XOrIOp::create(
                    b, l, arith::XOrIOp::create(b, l, p0.getHigh(), c[3]),
                    k[1]),
                p0.getLow()};
            std::copy(std::begin(next), std::end(next), std::begin(c));
          }
          Value chosen = c[3];
          for (int w = 2; w >= 0; --w) {
            Value isW = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq,
                                              word, c64(w));
            chosen = arith::SelectOp::create(b, l, isW, c[w], chosen);
          }
          Value top = arith::ShRUIOp::create(b, l, chosen, c32(8));
          Value value = arith::UIToFPOp::create(b, l, b.getF32Type(), top);
          Value scale = arith::ConstantOp::create(
              b, l, b.getF32FloatAttr(1.0f / 16777216.0f));
          linalg::YieldOp::create(
              b, l, arith::MulFOp::create(b, l, value, scale).getResult());
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// Dim `d` of `buffer`: a constant where static, else memref.dim.
OpFoldResult sizeOf(OpBuilder &b, Location loc, Value buffer, int64_t d) {
  auto type = cast<MemRefType>(buffer.getType());
  if (!type.isDynamicDim(d))
    return b.getIndexAttr(type.getDimSize(d));
  return memref::DimOp::create(b, loc, buffer, d).getResult();
}

struct ScatterAddLowering : OpConversionPattern<ScatterAddOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ScatterAddOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value operand = adaptor.getOperand();
    Value indices = adaptor.getIndices();
    Value updates = adaptor.getUpdates();
    auto operandType = cast<RankedTensorType>(operand.getType());
    auto indicesType = cast<RankedTensorType>(indices.getType());
    auto updatesType = cast<RankedTensorType>(updates.getType());
    int64_t dim = op.getDim();
    int64_t rank = operandType.getRank();
    int64_t indexRank = indicesType.getRank();
    Type element = operandType.getElementType();

    // The result starts as a copy of the operand, whose buffer
    // the adds then write in place: one-shot bufferization copies before
    // every tensor write in kiln's pipeline, which in a loop would copy
    // the whole table per index. The copy has no other reader, so the
    // buffer is the result's alone (to_tensor's restrict).
    // (An identity linalg.generic would fold away into the operand, whose
    // buffer may be the caller's.)
    Value copy = bufferization::AllocTensorOp::create(
        rewriter, loc, operandType, ValueRange{}, operand);
    auto bufferType = MemRefType::get(operandType.getShape(), element);
    Value buffer =
        bufferization::ToBufferOp::create(rewriter, loc, bufferType, copy);
    auto updatesBufferType = MemRefType::get(updatesType.getShape(), element);
    Value updatesBuffer = bufferization::ToBufferOp::create(
        rewriter, loc, updatesBufferType, updates, /*readOnly=*/true);

    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    Value count = one;
    SmallVector<Value> indexSizes;
    for (int64_t k = 0; k < indexRank; ++k) {
      indexSizes.push_back(tensor::DimOp::create(rewriter, loc, indices, k));
      count = arith::MulIOp::create(rewriter, loc, count, indexSizes.back());
    }
    Value extent = tensor::DimOp::create(rewriter, loc, operand, dim);

    // One index after another, in row-major order.
    auto loop = scf::ForOp::create(rewriter, loc, zero, count, one);
    {
      OpBuilder::InsertionGuard guard(rewriter);
      OpBuilder &b = rewriter;
      b.setInsertionPointToStart(loop.getBody());
      Value j = loop.getInductionVar();
      // j's position in the indices (row-major).
      SmallVector<Value> at(indexRank);
      Value rest = j;
      for (int64_t k = indexRank - 1; k >= 0; --k) {
        at[k] = arith::RemUIOp::create(b, loc, rest, indexSizes[k]);
        rest = arith::DivUIOp::create(b, loc, rest, indexSizes[k]);
      }
      Value position = arith::IndexCastOp::create(
          b, loc, b.getIndexType(),
          tensor::ExtractOp::create(b, loc, indices, at));
      Value inRange = arith::AndIOp::create(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, position,
                                zero),
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, position,
                                extent));
      auto branch = scf::IfOp::create(b, loc, inRange, /*withElse=*/false);
      b.setInsertionPointToStart(branch.thenBlock());
      // The slice at `position` of the result, and the one at `at` of the
      // updates: both of rank - 1 dims (the others in order).
      SmallVector<OpFoldResult> targetOffsets, targetSizes, sourceOffsets,
          sourceSizes;
      SmallVector<int64_t> sliceShape;
      for (int64_t d = 0; d < rank; ++d) {
        bool indexed = d == dim;
        targetOffsets.push_back(indexed ? OpFoldResult(position)
                                        : OpFoldResult(b.getIndexAttr(0)));
        targetSizes.push_back(indexed ? OpFoldResult(b.getIndexAttr(1))
                                      : sizeOf(b, loc, buffer, d));
        if (!indexed)
          sliceShape.push_back(operandType.getDimSize(d));
      }
      for (int64_t d = 0; d < updatesType.getRank(); ++d) {
        bool indexed = d >= dim && d < dim + indexRank;
        sourceOffsets.push_back(indexed ? OpFoldResult(at[d - dim])
                                        : OpFoldResult(b.getIndexAttr(0)));
        sourceSizes.push_back(indexed ? OpFoldResult(b.getIndexAttr(1))
                                      : sizeOf(b, loc, updatesBuffer, d));
      }
      SmallVector<OpFoldResult> targetStrides(rank, b.getIndexAttr(1));
      SmallVector<OpFoldResult> sourceStrides(updatesType.getRank(),
                                              b.getIndexAttr(1));
      auto targetType = memref::SubViewOp::inferRankReducedResultType(
          sliceShape, bufferType, targetOffsets, targetSizes, targetStrides);
      auto sourceType = memref::SubViewOp::inferRankReducedResultType(
          sliceShape, updatesBufferType, sourceOffsets, sourceSizes,
          sourceStrides);
      Value target = memref::SubViewOp::create(
          b, loc, cast<MemRefType>(targetType), buffer, targetOffsets,
          targetSizes, targetStrides);
      Value source = memref::SubViewOp::create(
          b, loc, cast<MemRefType>(sourceType), updatesBuffer, sourceOffsets,
          sourceSizes, sourceStrides);
      AffineMap identity = b.getMultiDimIdentityMap(rank - 1);
      linalg::GenericOp::create(
          b, loc, TypeRange{}, ValueRange{source}, ValueRange{target},
          SmallVector<AffineMap>{identity, identity}, allParallel(rank - 1),
          [element](OpBuilder &eb, Location el, ValueRange args) {
            Value x = extendToCompute(eb, el, args[1]);
            Value y = extendToCompute(eb, el, args[0]);
            Value sum = isa<FloatType>(x.getType())
                            ? arith::AddFOp::create(eb, el, x, y).getResult()
                            : arith::AddIOp::create(eb, el, x, y).getResult();
            linalg::YieldOp::create(eb, el,
                                    convertScalar(eb, el, sum, element));
          });
    }
    rewriter.replaceOp(op, bufferization::ToTensorOp::create(
                               rewriter, loc, operandType, buffer,
                               /*restrict=*/true, /*writable=*/true)
                               .getResult());
    return success();
  }
};

/// kiln.scatter_add as three parallel kernels, for a device whose memory
/// the host cannot loop over. With the indices flattened (row-major, j in
/// [0, N)) and V the extent of `dim`:
/// - next[j]: the least k > j whose index equals j's, else N;
/// - head[p]: the least j whose index is p, else N (an index out of [0, V)
///   heads no chain, so its update is dropped);
/// - the result: each element starts from the operand's and adds the
///   updates along its position's chain, head then next, in increasing j.
/// That is the CPU lowering's order of adds for every element, so the same
/// bits, and each element is one thread's alone: no atomics. next and head
/// cost N^2 and N V comparisons, which the device's threads share.
struct ParallelScatterAddLowering : OpConversionPattern<ScatterAddOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ScatterAddOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    Value operand = adaptor.getOperand();
    Value indices = adaptor.getIndices();
    Value updates = adaptor.getUpdates();
    auto operandType = cast<RankedTensorType>(operand.getType());
    auto indicesType = cast<RankedTensorType>(indices.getType());
    int64_t dim = op.getDim();
    int64_t rank = operandType.getRank();
    int64_t indexRank = indicesType.getRank();
    Type element = operandType.getElementType();
    Type i64 = b.getI64Type();

    // The indices as one dim of N.
    int64_t staticCount = 1;
    for (int64_t size : indicesType.getShape())
      staticCount =
          ShapedType::isDynamic(size) || ShapedType::isDynamic(staticCount)
              ? ShapedType::kDynamic
              : staticCount * size;
    auto flatType =
        RankedTensorType::get({staticCount}, indicesType.getElementType());
    Value flat = indices;
    if (indexRank == 0)
      flat = tensor::ExpandShapeOp::create(b, loc, flatType, indices,
                                           ArrayRef<ReassociationIndices>{});
    else if (indexRank > 1)
      flat = tensor::CollapseShapeOp::create(
          b, loc, indices,
          ArrayRef<ReassociationIndices>{
              llvm::to_vector(llvm::seq<int64_t>(0, indexRank))});
    Value count = tensor::DimOp::create(b, loc, flat, 0);
    Value count64 = arith::IndexCastOp::create(b, loc, i64, count);
    // A [size] i64 tensor of `fill`.
    auto filled = [&](int64_t staticSize, Value size, Value fill) {
      auto type = RankedTensorType::get({staticSize}, i64);
      SmallVector<Value> dynamic;
      if (ShapedType::isDynamic(staticSize))
        dynamic.push_back(size);
      Value empty = tensor::EmptyOp::create(b, loc, type, dynamic);
      return linalg::FillOp::create(b, loc, fill, empty).getResult(0);
    };
    auto index64 = [&](OpBuilder &eb, Location el, int64_t d) {
      return arith::IndexCastOp::create(eb, el, eb.getI64Type(),
                                        linalg::IndexOp::create(eb, el, d));
    };
    MLIRContext *context = b.getContext();
    AffineExpr d0 = b.getAffineDimExpr(0), d1 = b.getAffineDimExpr(1);
    SmallVector<utils::IteratorType> rowReduction = {
        utils::IteratorType::parallel, utils::IteratorType::reduction};

    // next[j] = min over k of (k > j && index[k] == index[j] ? k : N).
    Value noNext = filled(staticCount, count, count64);
    Value next = linalg::GenericOp::create(
                     b, loc, TypeRange{noNext.getType()},
                     ValueRange{flat, flat}, ValueRange{noNext},
                     SmallVector<AffineMap>{AffineMap::get(2, 0, d0, context),
                                            AffineMap::get(2, 0, d1, context),
                                            AffineMap::get(2, 0, d0, context)},
                     rowReduction,
                     [&](OpBuilder &eb, Location el, ValueRange args) {
                       Value j = index64(eb, el, 0), k = index64(eb, el, 1);
                       Value later = arith::CmpIOp::create(
                           eb, el, arith::CmpIPredicate::sgt, k, j);
                       Value same = arith::CmpIOp::create(
                           eb, el, arith::CmpIPredicate::eq, args[0], args[1]);
                       Value candidate = arith::SelectOp::create(
                           eb, el, arith::AndIOp::create(eb, el, later, same),
                           k, count64);
                       linalg::YieldOp::create(
                           eb, el,
                           arith::MinSIOp::create(eb, el, args[2], candidate)
                               .getResult());
                     })
                     .getResult(0);

    // head[p] = min over j of (index[j] == p ? j : N).
    int64_t staticExtent = operandType.getDimSize(dim);
    Value extent = tensor::DimOp::create(b, loc, operand, dim);
    Value head =
        linalg::GenericOp::create(
            b, loc, TypeRange{RankedTensorType::get({staticExtent}, i64)},
            ValueRange{flat}, ValueRange{filled(staticExtent, extent, count64)},
            SmallVector<AffineMap>{AffineMap::get(2, 0, d1, context),
                                   AffineMap::get(2, 0, d0, context)},
            rowReduction,
            [&](OpBuilder &eb, Location el, ValueRange args) {
              Value p = index64(eb, el, 0), j = index64(eb, el, 1);
              Value position = args[0];
              if (position.getType() != eb.getI64Type())
                position =
                    arith::ExtSIOp::create(eb, el, eb.getI64Type(), position);
              Value same = arith::CmpIOp::create(
                  eb, el, arith::CmpIPredicate::eq, position, p);
              Value candidate =
                  arith::SelectOp::create(eb, el, same, j, count64);
              linalg::YieldOp::create(
                  eb, el,
                  arith::MinSIOp::create(eb, el, args[1], candidate)
                      .getResult());
            })
            .getResult(0);

    // The result: each element walks its chain.
    SmallVector<Value> dynamicSizes;
    for (int64_t d = 0; d < rank; ++d)
      if (operandType.isDynamicDim(d))
        dynamicSizes.push_back(tensor::DimOp::create(b, loc, operand, d));
    Value empty = tensor::EmptyOp::create(b, loc, operandType, dynamicSizes);
    SmallVector<Value> indexSizes;
    for (int64_t k = 0; k < indexRank; ++k)
      indexSizes.push_back(tensor::DimOp::create(b, loc, indices, k));
    AffineMap identity = b.getMultiDimIdentityMap(rank);
    AffineMap atDim = AffineMap::get(rank, 0, b.getAffineDimExpr(dim), context);
    auto walk = [&](OpBuilder &eb, Location el, ValueRange args) {
      SmallVector<Value> ivs;
      for (int64_t d = 0; d < rank; ++d)
        ivs.push_back(linalg::IndexOp::create(eb, el, d));
      Type i64 = eb.getI64Type();
      auto loop = scf::WhileOp::create(
          eb, el, TypeRange{i64, element}, ValueRange{args[1], args[0]},
          [&](OpBuilder &wb, Location wl, ValueRange state) {
            Value more = arith::CmpIOp::create(
                wb, wl, arith::CmpIPredicate::slt, state[0], count64);
            scf::ConditionOp::create(wb, wl, more, state);
          },
          [&](OpBuilder &wb, Location wl, ValueRange state) {
            Value j =
                arith::IndexCastOp::create(wb, wl, wb.getIndexType(), state[0]);
            // j's position in the indices (row-major), between the
            // element's dims before and after `dim` in the updates.
            SmallVector<Value> at(indexRank);
            Value rest = j;
            for (int64_t k = indexRank - 1; k >= 0; --k) {
              at[k] = arith::RemUIOp::create(wb, wl, rest, indexSizes[k]);
              rest = arith::DivUIOp::create(wb, wl, rest, indexSizes[k]);
            }
            SmallVector<Value> source(ivs.begin(), ivs.begin() + dim);
            source.append(at);
            source.append(ivs.begin() + dim + 1, ivs.end());
            Value update = tensor::ExtractOp::create(wb, wl, updates, source);
            Value x = extendToCompute(wb, wl, state[1]);
            Value y = extendToCompute(wb, wl, update);
            Value sum = isa<FloatType>(x.getType())
                            ? arith::AddFOp::create(wb, wl, x, y).getResult()
                            : arith::AddIOp::create(wb, wl, x, y).getResult();
            Value following = tensor::ExtractOp::create(wb, wl, next, j);
            scf::YieldOp::create(
                wb, wl,
                ValueRange{following, convertScalar(wb, wl, sum, element)});
          });
      linalg::YieldOp::create(eb, el, loop.getResult(1));
    };
    auto result = linalg::GenericOp::create(
        b, loc, TypeRange{operandType}, ValueRange{operand, head},
        ValueRange{empty}, SmallVector<AffineMap>{identity, atDim, identity},
        allParallel(rank), walk);
    rewriter.replaceOp(op, result.getResult(0));
    return success();
  }
};

} // namespace

void kiln::populateIndexingLoweringPatterns(RewritePatternSet &patterns,
                                            bool parallelScatters) {
  patterns.add<IotaLowering, TakeLowering, ArgmaxLowering, RngUniformLowering>(
      patterns.getContext());
  if (parallelScatters)
    patterns.add<ParallelScatterAddLowering>(patterns.getContext());
  else
    patterns.add<ScatterAddLowering>(patterns.getContext());
}
