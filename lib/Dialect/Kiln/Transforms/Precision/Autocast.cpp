//===- Autocast.cpp - the -kiln-autocast pass -----------------------------===//
//
// torch.autocast for programs written in IR: each f32 product runs in bf16
// or f16 between converts, so that no type outside it changes.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

namespace kiln {
#define GEN_PASS_DEF_KILNAUTOCAST
#include "kiln/Dialect/Kiln/Transforms/Passes.h.inc"
} // namespace kiln

using namespace mlir;
using namespace kiln;

namespace {
struct KilnAutocastPass : kiln::impl::KilnAutocastBase<KilnAutocastPass> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    Type narrow;
    if (dtype == "bf16")
      narrow = BFloat16Type::get(context);
    else if (dtype == "f16")
      narrow = Float16Type::get(context);
    else {
      getOperation().emitError("-kiln-autocast: dtype must be bf16 or f16, "
                               "not '")
          << dtype << "'";
      return signalPassFailure();
    }
    SmallVector<MatmulOp> products;
    getOperation().walk([&](MatmulOp matmul) {
      if (matmul.getType().getElementType().isF32())
        products.push_back(matmul);
    });
    OpBuilder b(context);
    for (MatmulOp matmul : products) {
      b.setInsertionPoint(matmul);
      Location loc = matmul.getLoc();
      auto toNarrow = [&](Value value) {
        auto type = cast<RankedTensorType>(value.getType());
        return ConvertOp::create(b, loc, type.clone(narrow), value);
      };
      // The narrow product keeps the flags; a precision is for f32 only.
      auto product = MatmulOp::create(
          b, loc, matmul.getType().clone(narrow), toNarrow(matmul.getLhs()),
          toNarrow(matmul.getRhs()), matmul.getTransposeAAttr(),
          matmul.getTransposeBAttr(), MatmulPrecisionAttr());
      auto wide = ConvertOp::create(b, loc, matmul.getType(), product);
      matmul.replaceAllUsesWith(wide.getResult());
      matmul.erase();
      ++numNarrowed;
    }
  }
};
} // namespace
