//===- DistinctReturns.cpp - the -kiln-distinct-returns pass --------------===//
//
// Bufferization turns results into out-params; two results backed by one
// buffer cannot both be out-params (upstream's results-to-out-params pass
// does not handle it). Copy repeated return operands into fresh buffers.
// This runs on memrefs: at the tensor level a copy of a value is the value,
// and empty-tensor elimination would rightly remove it.
//
//===----------------------------------------------------------------------===//

#include "kiln/Codegen/Common/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace kiln {
#define GEN_PASS_DEF_KILNDISTINCTRETURNS
#include "kiln/Codegen/Common/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {
struct KilnDistinctReturnsPass
    : kiln::impl::KilnDistinctReturnsBase<KilnDistinctReturnsPass> {
  using Base::Base;

  void runOnOperation() override {
    getOperation().walk([](func::ReturnOp ret) {
      llvm::SmallPtrSet<Value, 8> seen;
      OpBuilder b(ret);
      for (OpOperand &operand : ret->getOpOperands()) {
        Value value = operand.get();
        auto type = dyn_cast<MemRefType>(value.getType());
        if (!type || seen.insert(value).second)
          continue;
        SmallVector<Value> dynamicSizes;
        for (int64_t d = 0; d < type.getRank(); ++d)
          if (type.isDynamicDim(d))
            dynamicSizes.push_back(
                memref::DimOp::create(b, ret.getLoc(), value, d));
        Value copy = memref::AllocOp::create(
            b, ret.getLoc(),
            MemRefType::get(type.getShape(), type.getElementType()),
            dynamicSizes, b.getI64IntegerAttr(64));
        memref::CopyOp::create(b, ret.getLoc(), value, copy);
        operand.set(copy);
      }
    });
  }
};
} // namespace
