//===- Elementwise.cpp - kiln elementwise ops to linalg.generic ------------===//
//
// Each elementwise kiln op becomes one parallel linalg.generic whose body is
// the scalar arith/math form of the op, computed in f32 for f16/bf16.
// Later linalg elementwise fusion merges producer/consumer chains.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Transforms/DialectConversion.h"

#include <cmath>

using namespace mlir;
using namespace kiln;

namespace {

using ScalarUnaryFn = Value (*)(OpBuilder &, Location, Value);
using ScalarBinaryFn = Value (*)(OpBuilder &, Location, Value, Value);

Value floatConstant(OpBuilder &b, Location loc, Type type, double value) {
  return arith::ConstantOp::create(b, loc, b.getFloatAttr(type, value));
}

/// Lowers a float T -> T op through a scalar function in the compute type.
template <typename OpTy>
struct UnaryLowering : OpConversionPattern<OpTy> {
  UnaryLowering(MLIRContext *context, ScalarUnaryFn fn)
      : OpConversionPattern<OpTy>(context), fn(fn) {}

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = op.getType();
    Value result = buildElementwise(
        rewriter, op.getLoc(), type, {adaptor.getOperand()},
        [&](OpBuilder &b, Location loc, ValueRange args) {
          Value x = extendToCompute(b, loc, args[0]);
          return convertScalar(b, loc, fn(b, loc, x), type.getElementType());
        });
    rewriter.replaceOp(op, result);
    return success();
  }

  ScalarUnaryFn fn;
};

/// Lowers a float T, T -> T op through a scalar function in the compute type.
template <typename OpTy>
struct BinaryLowering : OpConversionPattern<OpTy> {
  BinaryLowering(MLIRContext *context, ScalarBinaryFn fn)
      : OpConversionPattern<OpTy>(context), fn(fn) {}

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = op.getType();
    Value result = buildElementwise(
        rewriter, op.getLoc(), type, {adaptor.getLhs(), adaptor.getRhs()},
        [&](OpBuilder &b, Location loc, ValueRange args) {
          Value x = extendToCompute(b, loc, args[0]);
          Value y = extendToCompute(b, loc, args[1]);
          return convertScalar(b, loc, fn(b, loc, x, y),
                               type.getElementType());
        });
    rewriter.replaceOp(op, result);
    return success();
  }

  ScalarBinaryFn fn;
};

/// C's pow for the cases ML programs meet: powf on |x| (which the math
/// expansion turns into exp(y * log|x|)), then the sign for a negative base
/// with an integral exponent, NaN for a negative base with a fractional one,
/// and pow(x, 0) = 1 for every x.
Value buildPow(OpBuilder &b, Location loc, Value x, Value y) {
  Type type = x.getType();
  Value zero = floatConstant(b, loc, type, 0.0);
  Value one = floatConstant(b, loc, type, 1.0);
  Value half = floatConstant(b, loc, type, 0.5);
  Value two = floatConstant(b, loc, type, 2.0);
  Value nan = floatConstant(b, loc, type, std::nan(""));
  Value magnitude =
      math::PowFOp::create(b, loc, math::AbsFOp::create(b, loc, x), y);
  Value floorY = math::FloorOp::create(b, loc, y);
  Value isIntegral =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, floorY, y);
  // y - 2 * floor(y / 2) is 1 for odd integers.
  Value halfFloor = math::FloorOp::create(
      b, loc, arith::MulFOp::create(b, loc, y, half));
  Value parity = arith::SubFOp::create(
      b, loc, y, arith::MulFOp::create(b, loc, two, halfFloor));
  Value isOdd =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, parity, one);
  Value negated = arith::NegFOp::create(b, loc, magnitude);
  Value negativeBase = arith::SelectOp::create(
      b, loc, isIntegral,
      arith::SelectOp::create(b, loc, isOdd, negated, magnitude), nan);
  Value isNegative =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, zero);
  Value result =
      arith::SelectOp::create(b, loc, isNegative, negativeBase, magnitude);
  Value yIsZero =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, y, zero);
  return arith::SelectOp::create(b, loc, yIsZero, one, result);
}

arith::CmpFPredicate toArith(CmpPredicate predicate) {
  switch (predicate) {
  case CmpPredicate::eq:
    return arith::CmpFPredicate::OEQ;
  case CmpPredicate::ne:
    return arith::CmpFPredicate::UNE;
  case CmpPredicate::lt:
    return arith::CmpFPredicate::OLT;
  case CmpPredicate::le:
    return arith::CmpFPredicate::OLE;
  case CmpPredicate::gt:
    return arith::CmpFPredicate::OGT;
  case CmpPredicate::ge:
    return arith::CmpFPredicate::OGE;
  }
  llvm_unreachable("unknown kiln.cmp predicate");
}

struct CmpLowering : OpConversionPattern<CmpOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(CmpOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    arith::CmpFPredicate predicate = toArith(op.getPredicate());
    Value result = buildElementwise(
        rewriter, op.getLoc(), op.getType(),
        {adaptor.getLhs(), adaptor.getRhs()},
        [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
          return arith::CmpFOp::create(b, loc, predicate,
                                       extendToCompute(b, loc, args[0]),
                                       extendToCompute(b, loc, args[1]));
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct SelectLowering : OpConversionPattern<SelectOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(SelectOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value result = buildElementwise(
        rewriter, op.getLoc(), op.getType(),
        {adaptor.getPred(), adaptor.getOnTrue(), adaptor.getOnFalse()},
        [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
          return arith::SelectOp::create(b, loc, args[0], args[1], args[2]);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct ConvertLowering : OpConversionPattern<ConvertOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ConvertOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type to = op.getType().getElementType();
    Value result = buildElementwise(
        rewriter, op.getLoc(), op.getType(), {adaptor.getOperand()},
        [&](OpBuilder &b, Location loc, ValueRange args) {
          return convertScalar(b, loc, args[0], to);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void kiln::populateElementwiseLoweringPatterns(
    RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  // Unary ops, as scalar functions in the compute type.
  patterns.add<UnaryLowering<NegOp>>(
      ctx, [](OpBuilder &b, Location loc, Value x) -> Value {
        return arith::NegFOp::create(b, loc, x);
      });
  patterns.add<UnaryLowering<ExpOp>>(
      ctx, [](OpBuilder &b, Location loc, Value x) -> Value {
        return math::ExpOp::create(b, loc, x);
      });
  patterns.add<UnaryLowering<LogOp>>(
      ctx, [](OpBuilder &b, Location loc, Value x) -> Value {
        return math::LogOp::create(b, loc, x);
      });
  patterns.add<UnaryLowering<TanhOp>>(
      ctx, [](OpBuilder &b, Location loc, Value x) -> Value {
        return math::TanhOp::create(b, loc, x);
      });
  patterns.add<UnaryLowering<SigmoidOp>>(
      ctx, [](OpBuilder &b, Location loc, Value x) -> Value {
        // 1 / (1 + exp(-x)): exp overflows to inf for very negative x,
        // which gives the correct limit 0.
        Value one = floatConstant(b, loc, x.getType(), 1.0);
        Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x));
        return arith::DivFOp::create(b, loc, one,
                                     arith::AddFOp::create(b, loc, one, e));
      });
  patterns.add<UnaryLowering<ReluOp>>(
      ctx, [](OpBuilder &b, Location loc, Value x) -> Value {
        // maximumf propagates NaN and orders -0 below +0.
        return arith::MaximumFOp::create(
            b, loc, x, floatConstant(b, loc, x.getType(), 0.0));
      });
  patterns.add<UnaryLowering<SqrtOp>>(
      ctx, [](OpBuilder &b, Location loc, Value x) -> Value {
        return math::SqrtOp::create(b, loc, x);
      });
  patterns.add<UnaryLowering<RsqrtOp>>(
      ctx, [](OpBuilder &b, Location loc, Value x) -> Value {
        return math::RsqrtOp::create(b, loc, x);
      });
  patterns.add<UnaryLowering<AbsOp>>(
      ctx, [](OpBuilder &b, Location loc, Value x) -> Value {
        return math::AbsFOp::create(b, loc, x);
      });
  patterns.add<UnaryLowering<SinOp>>(
      ctx, [](OpBuilder &b, Location loc, Value x) -> Value {
        return math::SinOp::create(b, loc, x);
      });
  patterns.add<UnaryLowering<CosOp>>(
      ctx, [](OpBuilder &b, Location loc, Value x) -> Value {
        return math::CosOp::create(b, loc, x);
      });
  patterns.add<UnaryLowering<ReciprocalOp>>(
      ctx, [](OpBuilder &b, Location loc, Value x) -> Value {
        return arith::DivFOp::create(
            b, loc, floatConstant(b, loc, x.getType(), 1.0), x);
      });

  // Binary ops.
  patterns.add<BinaryLowering<AddOp>>(
      ctx, [](OpBuilder &b, Location loc, Value x, Value y) -> Value {
        return arith::AddFOp::create(b, loc, x, y);
      });
  patterns.add<BinaryLowering<SubOp>>(
      ctx, [](OpBuilder &b, Location loc, Value x, Value y) -> Value {
        return arith::SubFOp::create(b, loc, x, y);
      });
  patterns.add<BinaryLowering<MulOp>>(
      ctx, [](OpBuilder &b, Location loc, Value x, Value y) -> Value {
        return arith::MulFOp::create(b, loc, x, y);
      });
  patterns.add<BinaryLowering<DivOp>>(
      ctx, [](OpBuilder &b, Location loc, Value x, Value y) -> Value {
        return arith::DivFOp::create(b, loc, x, y);
      });
  patterns.add<BinaryLowering<MaxOp>>(
      ctx, [](OpBuilder &b, Location loc, Value x, Value y) -> Value {
        return arith::MaximumFOp::create(b, loc, x, y);
      });
  patterns.add<BinaryLowering<MinOp>>(
      ctx, [](OpBuilder &b, Location loc, Value x, Value y) -> Value {
        return arith::MinimumFOp::create(b, loc, x, y);
      });
  patterns.add<BinaryLowering<PowOp>>(ctx, buildPow);

  patterns.add<CmpLowering, SelectLowering, ConvertLowering>(ctx);
}
