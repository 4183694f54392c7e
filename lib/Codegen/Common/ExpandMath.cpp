//===- ExpandMath.cpp - the -kiln-expand-math pass ------------------------===//
//
// Scalar libm calls are about 20x slower than vectorized polynomials on the
// CPU: expand every math op that has an approximation into arith.
//
//===----------------------------------------------------------------------===//

#include "kiln/Codegen/Common/Passes.h"

#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <limits>

namespace kiln {
#define GEN_PASS_DEF_KILNEXPANDMATH
#include "kiln/Codegen/Common/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {
/// Builds f32 arithmetic of one shape (a scalar or a vector) for the
/// rewrites below. Multiply-adds may contract to FMAs where the CPU has
/// them.
struct F32Builder {
  PatternRewriter &rewriter;
  Location loc;
  Type type;

  /// `element` as a constant of `ofType`'s shape (splat for vectors).
  Value splat(Attribute element, Type ofType) const {
    if (auto shaped = dyn_cast<ShapedType>(ofType))
      element = SplatElementsAttr::get(shaped, element);
    return arith::ConstantOp::create(rewriter, loc, cast<TypedAttr>(element));
  }
  Value constant(double value) const {
    return splat(rewriter.getF32FloatAttr(static_cast<float>(value)), type);
  }
  arith::FastMathFlagsAttr contract() const {
    return arith::FastMathFlagsAttr::get(rewriter.getContext(),
                                         arith::FastMathFlags::contract);
  }
  Value mul(Value a, Value b) const {
    return arith::MulFOp::create(rewriter, loc, a, b, contract());
  }
  Value add(Value a, Value b) const {
    return arith::AddFOp::create(rewriter, loc, a, b, contract());
  }
  Value mulAdd(Value a, Value b, double c) const {
    return add(mul(a, b), constant(c));
  }
  /// Horner's rule: coefficients from the highest power down.
  Value polynomial(Value x, ArrayRef<double> coefficients) const {
    Value p = constant(coefficients.front());
    for (double c : coefficients.drop_front())
      p = mulAdd(p, x, c);
    return p;
  }
  Value clamp(Value x, double low, double high) const {
    return arith::MaxNumFOp::create(
        rewriter, loc,
        arith::MinNumFOp::create(rewriter, loc, x, constant(high)),
        constant(low));
  }
  /// The i32 type of the same shape.
  Type intType() const {
    Type i32 = IntegerType::get(rewriter.getContext(), 32);
    if (auto shaped = dyn_cast<ShapedType>(type))
      return shaped.clone(i32);
    return i32;
  }
  Value intConstant(int32_t value) const {
    return splat(rewriter.getI32IntegerAttr(value), intType());
  }
  Value asInt(Value v) const {
    return arith::BitcastOp::create(rewriter, loc, intType(), v);
  }
  /// `result`, or `x` where `x` is NaN (minnumf and maxnumf drop NaN).
  Value keepNaN(Value x, Value result) const {
    Value isNaN =
        arith::CmpFOp::create(rewriter, loc, arith::CmpFPredicate::UNO, x, x);
    return arith::SelectOp::create(rewriter, loc, isNaN, x, result);
  }
};

/// Matches `Op` on f32 scalars and vectors.
template <typename Op> struct F32Pattern : OpRewritePattern<Op> {
  F32Pattern(MLIRContext *ctx) : OpRewritePattern<Op>(ctx, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(Op op,
                                PatternRewriter &rewriter) const override {
    if (!getElementTypeOrSelf(op.getType()).isF32())
      return rewriter.notifyMatchFailure(op, "not f32");
    F32Builder b{rewriter, op.getLoc(), op.getType()};
    rewriter.replaceOp(op, build(b, op.getOperand()));
    return success();
  }
  virtual Value build(const F32Builder &b, Value x) const = 0;
};

/// x / ln2 rounded to an integer n without a conversion: adding `shifter`
/// (1.5 * 2^23, plus any bias) leaves n + bias in the low mantissa bits of
/// `shifted`; `n` is n as a float.
struct RoundedLog2 {
  Value shifted, n;
};
static RoundedLog2 roundDivideByLn2(const F32Builder &b, Value x,
                                    double shifter) {
  Value shifted = b.mulAdd(x, b.constant(1.44269504088896341), shifter);
  Value n =
      arith::SubFOp::create(b.rewriter, b.loc, shifted, b.constant(shifter));
  return {shifted, n};
}

/// exp(r) for r = x - n ln2 (|r| <= ln2 / 2): a degree-7 polynomial with
/// Cephes' coefficients, ln2 split so that n * 0.693359375 is exact.
static Value buildExpOfReduced(const F32Builder &b, Value n, Value x) {
  Value r = b.add(b.mul(n, b.constant(-0.693359375)), x);
  r = b.add(b.mul(n, b.constant(2.12194440e-4)), r);
  Value p =
      b.polynomial(r, {1.9875691500E-4, 1.3981999507E-3, 8.3334519073E-3,
                       4.1665795894E-2, 1.6666665459E-1, 5.0000001201E-1});
  return b.add(b.add(b.mul(b.mul(p, r), r), r), b.constant(1.0));
}

/// tanh(x) for f32 as a [13/6] rational function of x, clamped where tanh
/// rounds to +-1: about 20 vector instructions with one division, against
/// about 30 for upstream's exp-based form. The relative error is below
/// 4e-7 (7 ulp) over all of f32; the coefficients are the minimax fit that
/// Eigen's and XLA's CPU tanh use.
struct RationalTanhF32 : F32Pattern<math::TanhOp> {
  using F32Pattern::F32Pattern;

  Value build(const F32Builder &b, Value x) const override {
    // Beyond this tanh(x) rounds to +-1 in f32; clamping also maps +-inf
    // there.
    constexpr double kClamp = 7.90531110763549805;
    Value clamped = b.clamp(x, -kClamp, kClamp);
    Value x2 = b.mul(clamped, clamped);
    // x * P(x^2) / Q(x^2), odd powers from x^13 and even ones from x^6.
    Value p =
        b.mul(b.polynomial(x2, {-2.76076847742355e-16, 2.00018790482477e-13,
                                -8.60467152213735e-11, 5.12229709037114e-08,
                                1.48572235717979e-05, 6.37261928875436e-04,
                                4.89352455891786e-03}),
              clamped);
    Value q = b.polynomial(x2, {1.19825839466702e-06, 1.18534705686654e-04,
                                2.26843463243900e-03, 4.89352518554385e-03});
    Value result = arith::DivFOp::create(b.rewriter, b.loc, p, q);
    // At the clamp the fraction is 1 only up to rounding (which fused
    // multiply-adds change): give exactly +-1 there.
    Value saturated = arith::CmpFOp::create(
        b.rewriter, b.loc, arith::CmpFPredicate::OGE,
        math::AbsFOp::create(b.rewriter, b.loc, x), b.constant(kClamp));
    result = arith::SelectOp::create(
        b.rewriter, b.loc, saturated,
        math::CopySignOp::create(b.rewriter, b.loc, b.constant(1.0), x),
        result);
    return b.keepNaN(x, result);
  }
};

/// exp(x) for f32: x = n ln2 + r with |r| <= ln2 / 2, exp(r) by a degree-7
/// polynomial (Cephes' coefficients), times 2^n built in exponent bits. n
/// is rounded by adding 1.5 * 2^23, which leaves it in the low mantissa
/// bits (no floor or conversion), and 2^n is applied as 2^(n/2) 2^(n - n/2)
/// so that results near the top of the range come out right. Subnormal
/// results are flushed to zero, as XLA's flush-to-zero mode does: on x86
/// an instruction that produces a subnormal takes a microcode assist of
/// about a hundred cycles, and a causal mask's -1e9 scores made attention's
/// softmax four times slower. So x below the least f32 whose exp is normal
/// is computed as that one (no lane makes a subnormal) and then selected
/// to 0. About 27 vector instructions; the relative error is below 2e-7
/// (3 ulp) for normal results; exp(-inf) is 0, exp(inf) is inf, NaN stays.
struct CephesExpF32 : F32Pattern<math::ExpOp> {
  using F32Pattern::F32Pattern;

  Value build(const F32Builder &b, Value x) const override {
    PatternRewriter &rewriter = b.rewriter;
    Location loc = b.loc;
    // exp(kMinNormalInput) >= 2^-126 > exp of the next f32 below; exp is
    // inf above 88.8 whatever r is. The clamp keeps n within what two
    // exponent fields can scale by.
    constexpr double kMinNormalInput = -87.33654022216797;
    Value clamped = b.clamp(x, kMinNormalInput, 88.8);
    constexpr double kShifter = 12582912.0; // 1.5 * 2^23
    auto [shifted, n] = roundDivideByLn2(b, clamped, kShifter);
    Value expR = buildExpOfReduced(b, n, clamped);
    // n as an integer: the difference of the shifted and shifter bits.
    Value nInt = arith::SubIOp::create(rewriter, loc, b.asInt(shifted),
                                       b.asInt(b.constant(kShifter)));
    Value half = arith::ShRSIOp::create(rewriter, loc, nInt, b.intConstant(1));
    Value rest = arith::SubIOp::create(rewriter, loc, nInt, half);
    auto twoTo = [&](Value exponent) -> Value {
      Value bits = arith::ShLIOp::create(
          rewriter, loc,
          arith::AddIOp::create(rewriter, loc, exponent, b.intConstant(127)),
          b.intConstant(23));
      return arith::BitcastOp::create(rewriter, loc, b.type, bits);
    };
    Value result = arith::MulFOp::create(
        rewriter, loc, arith::MulFOp::create(rewriter, loc, expR, twoTo(half)),
        twoTo(rest));
    Value subnormal =
        arith::CmpFOp::create(rewriter, loc, arith::CmpFPredicate::OLT, x,
                              b.constant(kMinNormalInput));
    result = arith::SelectOp::create(rewriter, loc, subnormal, b.constant(0.0),
                                     result);
    return b.keepNaN(x, result);
  }
};

/// sin(x) or cos(x) for f32, as Cephes' sinf and cosf: x = k pi/2 + r with
/// |r| <= pi/4, k rounded by the shifter (as exp's n), pi/2 in three parts
/// whose products by k are exact for |k| < 2^13 (|x| < 12868); then sin(r)
/// or cos(r) by its polynomial, chosen and negated by k mod 4. The error
/// stays within 2e-7 there (about 2 ulp of 1) and grows with |x| beyond,
/// against upstream's approximation, which takes pi/2 as one f32: 1e-6
/// off at x = 30 and 1e-4 at 4096 (a positional encoding's arguments). |x|
/// beyond 2^22 pi/2, where f32 holds no fraction of pi/2, is taken as that
/// bound; inf and NaN give NaN.
static Value buildSinCos(const F32Builder &b, Value x, bool cosine) {
  PatternRewriter &rewriter = b.rewriter;
  Location loc = b.loc;
  constexpr double kHalfPi = 1.57079632679489661923;
  constexpr double kBound = 4194304.0 * kHalfPi; // 2^22 pi/2
  Value clamped = b.clamp(x, -kBound, kBound);
  constexpr double kShifter = 12582912.0; // 1.5 * 2^23
  Value shifted = arith::AddFOp::create(
      rewriter, loc, b.mul(clamped, b.constant(1.0 / kHalfPi)),
      b.constant(kShifter));
  Value k = arith::SubFOp::create(rewriter, loc, shifted, b.constant(kShifter));
  // Cephes' split of pi/2: 1.5703125 and the next part have few mantissa
  // bits.
  Value r = b.add(b.mul(k, b.constant(-1.5703125)), clamped);
  r = b.add(b.mul(k, b.constant(-4.837512969970703125e-4)), r);
  r = b.add(b.mul(k, b.constant(-7.54978995489188216e-8)), r);
  Value z = b.mul(r, r);
  // sin(r) = r + r z P(z), cos(r) = 1 - z / 2 + z^2 Q(z).
  Value sinR = b.add(
      b.mul(b.mul(r, z), b.polynomial(z, {-1.9515295891E-4, 8.3321608736E-3,
                                          -1.6666654611E-1})),
      r);
  Value cosR =
      b.add(b.mul(b.mul(z, z),
                  b.polynomial(z, {2.443315711809948E-5, -1.388731625493765E-3,
                                   4.166664568298827E-2})),
            b.add(b.mul(z, b.constant(-0.5)), b.constant(1.0)));
  // The quadrant, k mod 4, in the shifted value's low mantissa bits; cos
  // is sin a quadrant on.
  Value quadrant = arith::SubIOp::create(rewriter, loc, b.asInt(shifted),
                                         b.asInt(b.constant(kShifter)));
  if (cosine)
    quadrant = arith::AddIOp::create(rewriter, loc, quadrant, b.intConstant(1));
  Value odd = arith::CmpIOp::create(
      rewriter, loc, arith::CmpIPredicate::ne,
      arith::AndIOp::create(rewriter, loc, quadrant, b.intConstant(1)),
      b.intConstant(0));
  Value result = arith::SelectOp::create(rewriter, loc, odd, cosR, sinR);
  // Quadrants 2 and 3 negate: bit 1 of the quadrant to the sign bit.
  Value sign = arith::ShLIOp::create(
      rewriter, loc,
      arith::AndIOp::create(rewriter, loc, quadrant, b.intConstant(2)),
      b.intConstant(30));
  result = arith::BitcastOp::create(
      rewriter, loc, b.type,
      arith::XOrIOp::create(rewriter, loc, b.asInt(result), sign));
  // inf - inf and NaN - NaN are NaN.
  Value notFinite = arith::CmpFOp::create(
      rewriter, loc, arith::CmpFPredicate::UGE,
      math::AbsFOp::create(rewriter, loc, x),
      b.constant(std::numeric_limits<double>::infinity()));
  return arith::SelectOp::create(rewriter, loc, notFinite,
                                 arith::SubFOp::create(rewriter, loc, x, x),
                                 result);
}

struct CephesSinF32 : F32Pattern<math::SinOp> {
  using F32Pattern::F32Pattern;
  Value build(const F32Builder &b, Value x) const override {
    return buildSinCos(b, x, /*cosine=*/false);
  }
};

struct CephesCosF32 : F32Pattern<math::CosOp> {
  using F32Pattern::F32Pattern;
  Value build(const F32Builder &b, Value x) const override {
    return buildSinCos(b, x, /*cosine=*/true);
  }
};

/// sigmoid(x) = 1 / (1 + exp(-x)) for f32, as kiln lowers it, with an exp
/// that only the sigmoid's range needs: exp(-x) is clamped to where 2^n is
/// one exponent field (below, 1 + exp(-x) rounds to 1; above, exp(-x) is
/// inf and the result 0, at most 3e-39 from the true one), and the clamp is
/// a compare-and-select that lets NaN through. About 20 vector
/// instructions against about 30 through the general exp; the relative
/// error stays below 2e-7 wherever the result is a normal float.
struct SigmoidF32 : OpRewritePattern<arith::DivFOp> {
  SigmoidF32(MLIRContext *ctx)
      : OpRewritePattern<arith::DivFOp>(ctx, /*benefit=*/3) {}

  LogicalResult matchAndRewrite(arith::DivFOp div,
                                PatternRewriter &rewriter) const override {
    if (!getElementTypeOrSelf(div.getType()).isF32() ||
        !matchPattern(div.getLhs(), m_OneFloat()))
      return failure();
    auto add = div.getRhs().getDefiningOp<arith::AddFOp>();
    if (!add)
      return failure();
    Value other = matchPattern(add.getLhs(), m_OneFloat())   ? add.getRhs()
                  : matchPattern(add.getRhs(), m_OneFloat()) ? add.getLhs()
                                                             : Value();
    auto exp = other ? other.getDefiningOp<math::ExpOp>() : math::ExpOp();
    auto neg =
        exp ? exp.getOperand().getDefiningOp<arith::NegFOp>() : arith::NegFOp();
    if (!neg)
      return failure();

    F32Builder b{rewriter, div.getLoc(), div.getType()};
    Location loc = b.loc;
    Value t = neg.getResult();
    auto clampBelow = [&](Value v, double bound, arith::CmpFPredicate pred) {
      Value c = b.constant(bound);
      Value out = arith::CmpFOp::create(rewriter, loc, pred, v, c);
      return arith::SelectOp::create(rewriter, loc, out, c, v).getResult();
    };
    // NaN compares false and passes through both.
    t = clampBelow(t, -87.0, arith::CmpFPredicate::OLT);
    t = clampBelow(t, 88.8, arith::CmpFPredicate::OGT);
    // n + 127 lands in the low mantissa bits of `shifted`: shifted as an
    // integer, times 2^23, is 2^n (n = 128 gives inf).
    constexpr double kShifter = 12582912.0 + 127.0; // 1.5 * 2^23 + 127
    auto [shifted, n] = roundDivideByLn2(b, t, kShifter);
    Value expR = buildExpOfReduced(b, n, t);
    Value twoToN = arith::BitcastOp::create(
        rewriter, loc, b.type,
        arith::ShLIOp::create(rewriter, loc, b.asInt(shifted),
                              b.intConstant(23)));
    Value e = arith::MulFOp::create(rewriter, loc, expR, twoToN);
    Value denominator =
        arith::AddFOp::create(rewriter, loc, b.constant(1.0), e);
    rewriter.replaceOpWithNewOp<arith::DivFOp>(div, b.constant(1.0),
                                               denominator);
    return success();
  }
};

struct KilnExpandMathPass : kiln::impl::KilnExpandMathBase<KilnExpandMathPass> {
  using Base::Base;

  void runOnOperation() override {
    // Sigmoids first, before their exp is expanded on its own.
    RewritePatternSet sigmoids(&getContext());
    sigmoids.add<SigmoidF32>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(sigmoids)))) {
      getOperation()->emitError(
          "pattern rewriting did not converge within the iteration limit");
      return signalPassFailure();
    }

    RewritePatternSet patterns(&getContext());
    // First rewrite ops without a direct approximation (powf, sinh, ...)
    // into ones that have one, then approximate. tanh is not among them:
    // f32 has its own rational form below, and upstream's exp-based one
    // loses f64's relative accuracy near 0.
    math::populateExpansionPatterns(patterns, {"powf", "rsqrt", "sinh", "cosh",
                                               "asinh", "acosh", "atanh",
                                               "exp2", "ceil", "round"});
    // kiln's f32 tanh, exp, sin and cos win over upstream's (benefit 2).
    patterns.add<RationalTanhF32, CephesExpF32, CephesSinF32, CephesCosF32>(
        &getContext());
    populateMathPolynomialApproximationPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns)))) {
      getOperation()->emitError(
          "pattern rewriting did not converge within the iteration limit");
      return signalPassFailure();
    }
  }
};
} // namespace
