//===- LowerNativeFloatOps.cpp - the -kiln-lower-native-float-ops pass ----===//
//
// Calls of libdevice functions that PTX has instructions for -> LLVM
// intrinsics. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "kiln/Codegen/GPU/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "llvm/ADT/StringSwitch.h"

namespace kiln {
#define GEN_PASS_DEF_KILNLOWERNATIVEFLOATOPS
#include "kiln/Codegen/GPU/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {
/// Builds the LLVM op that replaces a libdevice call.
using Builder = Value (*)(OpBuilder &, Location, Type, ValueRange);

template <typename Op>
Value build(OpBuilder &b, Location loc, Type type, ValueRange operands) {
  return Op::create(b, loc, type, operands)->getResult(0);
}

/// The LLVM op (and its operand count) with the semantics of libdevice's
/// `name`, for f32 (`...f`) and f64 alike; null for the others.
std::pair<Builder, unsigned> getNativeOp(StringRef name) {
  if (!name.consume_front("__nv_"))
    return {nullptr, 0};
  // f32 names end in `f` (`fmaxf`), f64 ones do not (`fmax`); the
  // intrinsics take either.
  StringRef base = name;
  base.consume_back("f");
  return llvm::StringSwitch<std::pair<Builder, unsigned>>(base)
      .Case("fmax", {build<LLVM::MaxNumOp>, 2})
      .Case("fmin", {build<LLVM::MinNumOp>, 2})
      .Case("fmod", {build<LLVM::FRemOp>, 2})
      .Case("copysign", {build<LLVM::CopySignOp>, 2})
      .Case("fma", {build<LLVM::FMAOp>, 3})
      .Case("fabs", {build<LLVM::FAbsOp>, 1})
      .Case("sqrt", {build<LLVM::SqrtOp>, 1})
      .Case("floor", {build<LLVM::FFloorOp>, 1})
      .Case("ceil", {build<LLVM::FCeilOp>, 1})
      .Case("trunc", {build<LLVM::FTruncOp>, 1})
      .Case("round", {build<LLVM::RoundOp>, 1})
      .Case("rint", {build<LLVM::RoundEvenOp>, 1})
      .Default({nullptr, 0});
}

struct KilnLowerNativeFloatOpsPass
    : kiln::impl::KilnLowerNativeFloatOpsBase<KilnLowerNativeFloatOpsPass> {
  void runOnOperation() override {
    SmallVector<LLVM::CallOp> calls;
    getOperation().walk([&](LLVM::CallOp call) { calls.push_back(call); });
    for (LLVM::CallOp call : calls) {
      std::optional<StringRef> callee = call.getCallee();
      if (!callee || call.getNumResults() != 1)
        continue;
      auto [builder, arity] = getNativeOp(*callee);
      Type type = call.getResult().getType();
      if (!builder || call.getNumOperands() != arity ||
          !(type.isF32() || type.isF64()) ||
          llvm::any_of(call.getOperandTypes(),
                       [&](Type t) { return t != type; }))
        continue;
      OpBuilder b(call);
      call.getResult().replaceAllUsesWith(
          builder(b, call.getLoc(), type, call.getOperands()));
      call.erase();
    }
    // The declarations nothing calls any more.
    for (auto func :
         llvm::make_early_inc_range(getOperation().getOps<LLVM::LLVMFuncOp>()))
      if (func.isExternal() && func.getName().starts_with("__nv_") &&
          SymbolTable::symbolKnownUseEmpty(func, getOperation()))
        func.erase();
  }
};
} // namespace
