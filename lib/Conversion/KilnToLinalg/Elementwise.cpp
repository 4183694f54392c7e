//===- Elementwise.cpp - kiln elementwise ops to linalg.generic -----------===//
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
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <functional>

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
  Value halfFloor =
      math::FloorOp::create(b, loc, arith::MulFOp::create(b, loc, y, half));
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

/// 0.5 x (1 + erf(x / sqrt 2)), or with `approximate` the tanh form
/// 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))).
Value buildGelu(OpBuilder &b, Location loc, Value x, bool approximate) {
  Type type = x.getType();
  auto constant = [&](double value) {
    return floatConstant(b, loc, type, value);
  };
  auto mul = [&](Value l, Value r) -> Value {
    return arith::MulFOp::create(b, loc, l, r);
  };
  Value inner;
  if (approximate) {
    Value cube = mul(mul(x, x), x);
    Value u = arith::AddFOp::create(
        b, loc, x, mul(constant(GeluOp::kCubicCoefficient), cube));
    inner = math::TanhOp::create(b, loc, mul(constant(GeluOp::kTanhScale), u));
  } else {
    inner = math::ErfOp::create(b, loc, mul(x, constant(M_SQRT1_2)));
  }
  Value onePlus = arith::AddFOp::create(b, loc, constant(1.0), inner);
  return mul(mul(constant(0.5), x), onePlus);
}

/// `result` where `x` is finite, NaN elsewhere: sin and cos of NaN and of
/// infinities (the CPU's polynomial forms reduce the range with an integer
/// conversion, which gives them no meaning there).
static Value nanUnlessFinite(OpBuilder &b, Location loc, Value x,
                             Value result) {
  Value difference = arith::SubFOp::create(b, loc, x, x); // NaN unless finite
  Value notFinite = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO,
                                          difference, difference);
  return arith::SelectOp::create(b, loc, notFinite, difference, result);
}

using UnaryScalarFn = std::function<Value(OpBuilder &, Location, Value)>;
using BinaryScalarFn =
    std::function<Value(OpBuilder &, Location, Value, Value)>;

/// The scalar form of a float T -> T op, in the compute type; null when `op`
/// is not one.
UnaryScalarFn getUnaryScalar(Operation *op) {
  using F = UnaryScalarFn;
  return TypeSwitch<Operation *, F>(op)
      .Case([](NegOp) {
        return F([](OpBuilder &b, Location loc, Value x) -> Value {
          return arith::NegFOp::create(b, loc, x);
        });
      })
      .Case([](ExpOp) {
        return F([](OpBuilder &b, Location loc, Value x) -> Value {
          return math::ExpOp::create(b, loc, x);
        });
      })
      .Case([](LogOp) {
        return F([](OpBuilder &b, Location loc, Value x) -> Value {
          return math::LogOp::create(b, loc, x);
        });
      })
      .Case([](TanhOp) {
        return F([](OpBuilder &b, Location loc, Value x) -> Value {
          return math::TanhOp::create(b, loc, x);
        });
      })
      .Case([](SigmoidOp) {
        // 1 / (1 + exp(-x)): exp overflows to inf for very negative x,
        // which gives the correct limit 0, and the tails keep their
        // relative accuracy (0.5 + 0.5 tanh(x / 2) would not).
        return F([](OpBuilder &b, Location loc, Value x) -> Value {
          Value one = floatConstant(b, loc, x.getType(), 1.0);
          Value e =
              math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x));
          return arith::DivFOp::create(b, loc, one,
                                       arith::AddFOp::create(b, loc, one, e));
        });
      })
      .Case([](ReluOp) {
        // maximumf propagates NaN and orders -0 below +0.
        return F([](OpBuilder &b, Location loc, Value x) -> Value {
          return arith::MaximumFOp::create(
              b, loc, x, floatConstant(b, loc, x.getType(), 0.0));
        });
      })
      .Case([](SqrtOp) {
        return F([](OpBuilder &b, Location loc, Value x) -> Value {
          return math::SqrtOp::create(b, loc, x);
        });
      })
      .Case([](RsqrtOp) {
        return F([](OpBuilder &b, Location loc, Value x) -> Value {
          return math::RsqrtOp::create(b, loc, x);
        });
      })
      .Case([](AbsOp) {
        return F([](OpBuilder &b, Location loc, Value x) -> Value {
          return math::AbsFOp::create(b, loc, x);
        });
      })
      .Case([](SinOp) {
        return F([](OpBuilder &b, Location loc, Value x) -> Value {
          return nanUnlessFinite(b, loc, x, math::SinOp::create(b, loc, x));
        });
      })
      .Case([](CosOp) {
        return F([](OpBuilder &b, Location loc, Value x) -> Value {
          return nanUnlessFinite(b, loc, x, math::CosOp::create(b, loc, x));
        });
      })
      .Case([](ReciprocalOp) {
        return F([](OpBuilder &b, Location loc, Value x) -> Value {
          return arith::DivFOp::create(
              b, loc, floatConstant(b, loc, x.getType(), 1.0), x);
        });
      })
      .Case([](ErfOp) {
        return F([](OpBuilder &b, Location loc, Value x) -> Value {
          return math::ErfOp::create(b, loc, x);
        });
      })
      .Case([](GeluOp gelu) {
        bool approximate = gelu.getApproximate();
        return F([approximate](OpBuilder &b, Location loc, Value x) {
          return buildGelu(b, loc, x, approximate);
        });
      })
      .Default([](Operation *) { return F(); });
}

/// The scalar form of a float T, T -> T op, in the compute type; null when
/// `op` is not one.
BinaryScalarFn getBinaryScalar(Operation *op) {
  using F = BinaryScalarFn;
  return TypeSwitch<Operation *, F>(op)
      .Case([](AddOp) {
        return F([](OpBuilder &b, Location loc, Value x, Value y) -> Value {
          return arith::AddFOp::create(b, loc, x, y);
        });
      })
      .Case([](SubOp) {
        return F([](OpBuilder &b, Location loc, Value x, Value y) -> Value {
          return arith::SubFOp::create(b, loc, x, y);
        });
      })
      .Case([](MulOp) {
        return F([](OpBuilder &b, Location loc, Value x, Value y) -> Value {
          return arith::MulFOp::create(b, loc, x, y);
        });
      })
      .Case([](DivOp) {
        return F([](OpBuilder &b, Location loc, Value x, Value y) -> Value {
          return arith::DivFOp::create(b, loc, x, y);
        });
      })
      .Case([](MaxOp) {
        return F([](OpBuilder &b, Location loc, Value x, Value y) -> Value {
          return arith::MaximumFOp::create(b, loc, x, y);
        });
      })
      .Case([](MinOp) {
        return F([](OpBuilder &b, Location loc, Value x, Value y) -> Value {
          return arith::MinimumFOp::create(b, loc, x, y);
        });
      })
      .Case([](PowOp) { return F(buildPow); })
      .Default([](Operation *) { return F(); });
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

    FailureOr<ScalarLowering> scalar = getScalarLowering(op);
    if (failed(scalar))
      return op->emitOpError("has no lowering to arith and math");
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    Value result =
        buildElementwise(rewriter, op->getLoc(), type, operands, *scalar);
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

bool kiln::isElementwiseKilnOp(Operation *op) {
  return isa<KilnDialect>(op->getDialect()) &&
         op->hasTrait<OpTrait::Elementwise>();
}

/// The scalar form of an elementwise op on i32/i64 (two's complement,
/// wrapping); null when the op has none.
static ScalarLowering getIntegerScalar(Operation *op) {
  using L = ScalarLowering;
  auto zero = [](OpBuilder &b, Location loc, Type type) -> Value {
    return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, 0));
  };
  return TypeSwitch<Operation *, L>(op)
      .Case([&](NegOp) {
        return L([zero](OpBuilder &b, Location loc, ValueRange args) -> Value {
          return arith::SubIOp::create(b, loc, zero(b, loc, args[0].getType()),
                                       args[0]);
        });
      })
      .Case([](AbsOp) {
        return L([](OpBuilder &b, Location loc, ValueRange args) -> Value {
          return math::AbsIOp::create(b, loc, args[0]);
        });
      })
      .Case([](AddOp) {
        return L([](OpBuilder &b, Location loc, ValueRange args) -> Value {
          return arith::AddIOp::create(b, loc, args[0], args[1]);
        });
      })
      .Case([](SubOp) {
        return L([](OpBuilder &b, Location loc, ValueRange args) -> Value {
          return arith::SubIOp::create(b, loc, args[0], args[1]);
        });
      })
      .Case([](MulOp) {
        return L([](OpBuilder &b, Location loc, ValueRange args) -> Value {
          return arith::MulIOp::create(b, loc, args[0], args[1]);
        });
      })
      .Case([](MaxOp) {
        return L([](OpBuilder &b, Location loc, ValueRange args) -> Value {
          return arith::MaxSIOp::create(b, loc, args[0], args[1]);
        });
      })
      .Case([](MinOp) {
        return L([](OpBuilder &b, Location loc, ValueRange args) -> Value {
          return arith::MinSIOp::create(b, loc, args[0], args[1]);
        });
      })
      .Case([](CmpOp cmp) {
        arith::CmpIPredicate predicate;
        switch (cmp.getPredicate()) {
        case CmpPredicate::eq:
          predicate = arith::CmpIPredicate::eq;
          break;
        case CmpPredicate::ne:
          predicate = arith::CmpIPredicate::ne;
          break;
        case CmpPredicate::lt:
          predicate = arith::CmpIPredicate::slt;
          break;
        case CmpPredicate::le:
          predicate = arith::CmpIPredicate::sle;
          break;
        case CmpPredicate::gt:
          predicate = arith::CmpIPredicate::sgt;
          break;
        case CmpPredicate::ge:
          predicate = arith::CmpIPredicate::sge;
          break;
        }
        return L(
            [predicate](OpBuilder &b, Location loc, ValueRange args) -> Value {
              return arith::CmpIOp::create(b, loc, predicate, args[0], args[1]);
            });
      })
      .Default([](Operation *) { return L(); });
}

FailureOr<ScalarLowering> kiln::getScalarLowering(Operation *op) {
  if (!isElementwiseKilnOp(op))
    return failure();
  // i32/i64 operands (select and convert are type-generic below).
  if (!isa<SelectOp, ConvertOp>(op) && op->getNumOperands() > 0 &&
      getElementTypeOrSelf(op->getOperand(0).getType()).isSignlessInteger() &&
      !getElementTypeOrSelf(op->getOperand(0).getType()).isInteger(1)) {
    if (ScalarLowering lowering = getIntegerScalar(op))
      return lowering;
    return failure();
  }
  if (auto cmp = dyn_cast<CmpOp>(op)) {
    arith::CmpFPredicate predicate = toArith(cmp.getPredicate());
    return ScalarLowering(
        [predicate](OpBuilder &b, Location loc, ValueRange args) -> Value {
          return arith::CmpFOp::create(b, loc, predicate,
                                       extendToCompute(b, loc, args[0]),
                                       extendToCompute(b, loc, args[1]));
        });
  }
  if (isa<SelectOp>(op))
    return ScalarLowering([](OpBuilder &b, Location loc, ValueRange args) {
      return arith::SelectOp::create(b, loc, args[0], args[1], args[2])
          .getResult();
    });
  Type elementType =
      cast<RankedTensorType>(op->getResult(0).getType()).getElementType();
  if (isa<ConvertOp>(op))
    return ScalarLowering(
        [elementType](OpBuilder &b, Location loc, ValueRange args) {
          return convertScalar(b, loc, args[0], elementType);
        });
  // Float math computes in f32 for f16/bf16 and rounds once.
  if (op->getNumOperands() == 1)
    if (UnaryScalarFn fn = getUnaryScalar(op))
      return ScalarLowering(
          [fn, elementType](OpBuilder &b, Location loc, ValueRange args) {
            Value x = extendToCompute(b, loc, args[0]);
            return convertScalar(b, loc, fn(b, loc, x), elementType);
          });
  if (op->getNumOperands() == 2)
    if (BinaryScalarFn fn = getBinaryScalar(op))
      return ScalarLowering(
          [fn, elementType](OpBuilder &b, Location loc, ValueRange args) {
            Value x = extendToCompute(b, loc, args[0]);
            Value y = extendToCompute(b, loc, args[1]);
            return convertScalar(b, loc, fn(b, loc, x, y), elementType);
          });
  return failure();
}

void kiln::populateElementwiseLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<ElementwiseLowering>(patterns.getContext());
}
