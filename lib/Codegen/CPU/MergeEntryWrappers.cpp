//===- MergeEntryWrappers.cpp - the -kiln-merge-entry-wrappers pass -------===//
//
// llvm.func @_mlir_ciface_F(%descriptors...) { loads; llvm.call @F(fields) }
//   ->  llvm.func @_mlir_ciface_F(%descriptors...) { loads; F's body }
//
//===----------------------------------------------------------------------===//

#include "kiln/Codegen/CPU/Passes.h"

#include "mlir/IR/SymbolTable.h"

namespace kiln {
#define GEN_PASS_DEF_KILNMERGEENTRYWRAPPERS
#include "kiln/Codegen/CPU/Passes.h.inc"
} // namespace kiln

using namespace mlir;

static constexpr StringLiteral kWrapperPrefix = "_mlir_ciface_";

/// The call of `callee` in `wrapper` when it is `callee`'s only use.
static LLVM::CallOp getOnlyCall(LLVM::LLVMFuncOp callee,
                                LLVM::LLVMFuncOp wrapper, ModuleOp module) {
  std::optional<SymbolTable::UseRange> uses =
      SymbolTable::getSymbolUses(callee, module);
  if (!uses || !llvm::hasSingleElement(*uses))
    return {};
  auto call = dyn_cast<LLVM::CallOp>(uses->begin()->getUser());
  if (!call || call->getParentOp() != wrapper.getOperation() ||
      call.getCallee() != callee.getName() ||
      call.getCalleeOperands().size() != callee.getNumArguments() ||
      !call.getOpBundleOperands().empty())
    return {};
  return call;
}

/// Appends `from`'s passthrough attributes that `to` lacks.
static void mergePassthrough(LLVM::LLVMFuncOp from, LLVM::LLVMFuncOp to) {
  ArrayAttr fromAttrs = from.getPassthroughAttr();
  if (!fromAttrs)
    return;
  SmallVector<Attribute> merged;
  if (ArrayAttr toAttrs = to.getPassthroughAttr())
    llvm::append_range(merged, toAttrs);
  for (Attribute attr : fromAttrs)
    if (!llvm::is_contained(merged, attr))
      merged.push_back(attr);
  to.setPassthroughAttr(ArrayAttr::get(to.getContext(), merged));
}

namespace {
struct KilnMergeEntryWrappersPass
    : kiln::impl::KilnMergeEntryWrappersBase<KilnMergeEntryWrappersPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<LLVM::LLVMFuncOp> wrappers;
    for (auto func : module.getOps<LLVM::LLVMFuncOp>())
      if (func.getName().starts_with(kWrapperPrefix) && !func.isExternal())
        wrappers.push_back(func);

    for (LLVM::LLVMFuncOp wrapper : wrappers) {
      auto callee = module.lookupSymbol<LLVM::LLVMFuncOp>(
          wrapper.getName().drop_front(kWrapperPrefix.size()));
      if (!callee || callee.isExternal() || callee.isVarArg() ||
          !llvm::hasSingleElement(callee.getBody()))
        continue;
      Block &body = callee.getBody().front();
      auto terminator = dyn_cast<LLVM::ReturnOp>(body.getTerminator());
      LLVM::CallOp call = getOnlyCall(callee, wrapper, module);
      if (!terminator || !call ||
          terminator->getNumOperands() != call->getNumResults())
        continue;

      for (auto [arg, operand] :
           llvm::zip_equal(body.getArguments(), call.getCalleeOperands()))
        arg.replaceAllUsesWith(operand);
      call->replaceAllUsesWith(terminator->getOperands());
      Block *into = call->getBlock();
      into->getOperations().splice(call->getIterator(), body.getOperations(),
                                   body.begin(), terminator->getIterator());
      call->erase();
      mergePassthrough(callee, wrapper);
      callee->erase();
    }
  }
};
} // namespace
