//===- ExpandMath.cpp - the -kiln-expand-math pass --------------------------===//
//
// Scalar libm calls are about 20x slower than vectorized polynomials on the
// CPU: expand every math op that has an approximation into arith.
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/Passes.h"

#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace kiln {
#define GEN_PASS_DEF_KILNEXPANDMATH
#include "kiln/Conversion/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {
struct KilnExpandMathPass
    : kiln::impl::KilnExpandMathBase<KilnExpandMathPass> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    // First rewrite ops without a direct approximation (powf, sinh, ...)
    // into ones that have one, then approximate.
    math::populateExpansionPatterns(patterns);
    populateMathPolynomialApproximationPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
