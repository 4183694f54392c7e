//===- EliminateEmptyTensors.cpp - the -kiln-eliminate-empty-tensors pass ----===//
//
// Empty-tensor elimination is what makes a concat one buffer that every
// producer writes in place; its analysis costs about as much as one-shot
// bufferization, so it only runs where a tensor.insert_slice exists.
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/Passes.h"

#include "mlir/Dialect/Bufferization/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace kiln {
#define GEN_PASS_DEF_KILNELIMINATEEMPTYTENSORS
#include "kiln/Conversion/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {
struct KilnEliminateEmptyTensorsPass
    : kiln::impl::KilnEliminateEmptyTensorsBase<
          KilnEliminateEmptyTensorsPass> {
  using Base::Base;

  void runOnOperation() override {
    bool hasInsertion = getOperation()
                            .walk([](tensor::InsertSliceOp) {
                              return WalkResult::interrupt();
                            })
                            .wasInterrupted();
    if (!hasInsertion)
      return markAllAnalysesPreserved();
    IRRewriter rewriter(&getContext());
    if (failed(bufferization::eliminateEmptyTensors(rewriter, getOperation())))
      signalPassFailure();
  }
};
} // namespace
