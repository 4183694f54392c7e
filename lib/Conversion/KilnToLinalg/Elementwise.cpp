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
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace kiln;

namespace {


Value floatConstant(OpBuilder &b, Location loc, Type type, double value) {
  return arith::ConstantOp::create(b, loc, b.getFloatAttr(type, value));
}

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

/// The scalar form of a float T -> T op, in the compute type.
Value unaryScalar(OpBuilder &b, Location loc, Operation *op, Value x) {
  return TypeSwitch<Operation *, Value>(op)
      .Case([&](NegOp) { return arith::NegFOp::create(b, loc, x); })
      .Case([&](ExpOp) { return math::ExpOp::create(b, loc, x); })
      .Case([&](LogOp) { return math::LogOp::create(b, loc, x); })
      .Case([&](TanhOp) { return math::TanhOp::create(b, loc, x); })
      .Case([&](SigmoidOp) -> Value {
        // 1 / (1 + exp(-x)): exp overflows to inf for very negative x,
        // which gives the correct limit 0, and the tails keep their
        // relative accuracy (0.5 + 0.5 tanh(x / 2) would not).
        Value one = floatConstant(b, loc, x.getType(), 1.0);
        Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x));
        return arith::DivFOp::create(b, loc, one,
                                     arith::AddFOp::create(b, loc, one, e));
      })
      .Case([&](ReluOp) -> Value {
        // maximumf propagates NaN and orders -0 below +0.
        return arith::MaximumFOp::create(
            b, loc, x, floatConstant(b, loc, x.getType(), 0.0));
      })
      .Case([&](SqrtOp) { return math::SqrtOp::create(b, loc, x); })
      .Case([&](RsqrtOp) { return math::RsqrtOp::create(b, loc, x); })
      .Case([&](AbsOp) { return math::AbsFOp::create(b, loc, x); })
      .Case([&](SinOp) { return math::SinOp::create(b, loc, x); })
      .Case([&](CosOp) { return math::CosOp::create(b, loc, x); })
      .Case([&](ReciprocalOp) -> Value {
        return arith::DivFOp::create(
            b, loc, floatConstant(b, loc, x.getType(), 1.0), x);
      })
      .Default([](Operation *) { return Value(); });
}

/// The scalar form of a float T, T -> T op, in the compute type.
Value binaryScalar(OpBuilder &b, Location loc, Operation *op, Value x,
                   Value y) {
  return TypeSwitch<Operation *, Value>(op)
      .Case([&](AddOp) { return arith::AddFOp::create(b, loc, x, y); })
      .Case([&](SubOp) { return arith::SubFOp::create(b, loc, x, y); })
      .Case([&](MulOp) { return arith::MulFOp::create(b, loc, x, y); })
      .Case([&](DivOp) { return arith::DivFOp::create(b, loc, x, y); })
      .Case([&](MaxOp) { return arith::MaximumFOp::create(b, loc, x, y); })
      .Case([&](MinOp) { return arith::MinimumFOp::create(b, loc, x, y); })
      .Case([&](PowOp) { return buildPow(b, loc, x, y); })
      .Default([](Operation *) { return Value(); });
}

/// Lowers any elementwise kiln op to one parallel linalg.generic.
struct ElementwiseLowering : ConversionPattern {
  ElementwiseLowering(MLIRContext *context)
      : ConversionPattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isElementwiseKilnOp(op))
      return rewriter.notifyMatchFailure(op, "not an elementwise kiln op");
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    Value result = buildElementwise(
        rewriter, op->getLoc(), type, operands,
        [&](OpBuilder &b, Location loc, ValueRange args) {
          return buildElementwiseScalar(b, loc, op, args);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

bool kiln::isElementwiseKilnOp(Operation *op) {
  return isa<KilnDialect>(op->getDialect()) &&
         op->hasTrait<OpTrait::Elementwise>();
}

Value kiln::buildElementwiseScalar(OpBuilder &b, Location loc, Operation *op,
                                   ValueRange args) {
  return TypeSwitch<Operation *, Value>(op)
      .Case([&](CmpOp cmp) -> Value {
        return arith::CmpFOp::create(b, loc, toArith(cmp.getPredicate()),
                                     extendToCompute(b, loc, args[0]),
                                     extendToCompute(b, loc, args[1]));
      })
      .Case([&](SelectOp) -> Value {
        return arith::SelectOp::create(b, loc, args[0], args[1], args[2]);
      })
      .Case([&](ConvertOp convert) {
        return convertScalar(b, loc, args[0], convert.getType().getElementType());
      })
      .Default([&](Operation *) -> Value {
        // Float ops compute in f32 for f16/bf16 and round once.
        Type elementType =
            cast<RankedTensorType>(op->getResult(0).getType()).getElementType();
        SmallVector<Value> wide;
        for (Value arg : args)
          wide.push_back(extendToCompute(b, loc, arg));
        Value result = wide.size() == 1
                           ? unaryScalar(b, loc, op, wide[0])
                           : binaryScalar(b, loc, op, wide[0], wide[1]);
        return convertScalar(b, loc, result, elementType);
      });
}

void kiln::populateElementwiseLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<ElementwiseLowering>(patterns.getContext());
}
