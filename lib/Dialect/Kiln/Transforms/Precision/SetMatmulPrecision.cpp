//===- SetMatmulPrecision.cpp - the -kiln-set-matmul-precision pass -------===//
//
// torch.set_float32_matmul_precision for a whole program: each f32
// kiln.matmul without a precision of its own gets the pass's.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/Transforms/Passes.h"

namespace kiln {
#define GEN_PASS_DEF_KILNSETMATMULPRECISION
#include "kiln/Dialect/Kiln/Transforms/Passes.h.inc"
} // namespace kiln

using namespace mlir;
using namespace kiln;

namespace {
struct KilnSetMatmulPrecisionPass
    : kiln::impl::KilnSetMatmulPrecisionBase<KilnSetMatmulPrecisionPass> {
  using Base::Base;

  void runOnOperation() override {
    if (precision == MatmulPrecision::highest)
      return markAllAnalysesPreserved();
    auto attr = MatmulPrecisionAttr::get(&getContext(), precision);
    getOperation().walk([&](MatmulOp matmul) {
      if (matmul.getPrecision() || !matmul.getType().getElementType().isF32())
        return;
      matmul.setPrecisionAttr(attr);
      ++numSet;
    });
  }
};
} // namespace
