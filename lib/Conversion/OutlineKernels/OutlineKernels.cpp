//===- OutlineKernels.cpp - the -kiln-outline-kernels pass -------------------===//
//
// linalg op on buffers  ->  func.call @kiln_kernel_N(operands)
//
// The kernel key is the printed kernel function with a fixed name: printing
// numbers values in order and omits locations, and attribute dictionaries
// are sorted, so equal keys mean alpha-equivalent kernels.
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/Passes.h"
#include "kiln/Support/PassStatistics.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"

namespace kiln {
#define GEN_PASS_DEF_KILNOUTLINEKERNELS
#include "kiln/Conversion/Passes.h.inc"
} // namespace kiln

using namespace mlir;

static constexpr StringLiteral kKernelAttr = "kiln.kernel";

/// Whether `value` is a constant that is cheaper to clone than to pass.
static bool isClonableConstant(Value value) {
  Operation *def = value.getDefiningOp();
  return def && def->getNumOperands() == 0 && def->getNumRegions() == 0 &&
         def->hasTrait<OpTrait::ConstantLike>();
}

/// The kernel text used as the deduplication key (the kernel still has its
/// placeholder name when this runs).
static std::string getKernelKey(func::FuncOp kernel) {
  std::string key;
  llvm::raw_string_ostream os(key);
  OpPrintingFlags flags;
  flags.printGenericOpForm();
  kernel->print(os, flags);
  return key;
}

namespace {
struct KilnOutlineKernelsPass
    : kiln::impl::KilnOutlineKernelsBase<KilnOutlineKernelsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    SymbolTable symbols(module);
    llvm::StringMap<func::FuncOp> kernelsByKey;
    int64_t launches = 0, uniqueKernels = 0;

    SmallVector<func::FuncOp> funcs;
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isExternal() && !func->hasAttr(kKernelAttr))
        funcs.push_back(func);

    for (func::FuncOp func : funcs) {
      SmallVector<linalg::LinalgOp> ops;
      func.walk([&](linalg::LinalgOp op) { ops.push_back(op); });
      for (linalg::LinalgOp op : ops) {
        if (!op.hasPureBufferSemantics()) {
          op.emitOpError("on tensors: outline kernels after bufferization");
          return signalPassFailure();
        }
        // Arguments: operands and values the body captures, in order;
        // constants are cloned into the kernel instead.
        llvm::SetVector<Value> used(op->getOperands().begin(),
                                    op->getOperands().end());
        llvm::SetVector<Value> captured;
        getUsedValuesDefinedAbove(op->getRegions(), captured);
        used.insert(captured.begin(), captured.end());
        SmallVector<Value> args, constants;
        for (Value v : used)
          (isClonableConstant(v) ? constants : args).push_back(v);

        SmallVector<Type> argTypes;
        for (Value v : args)
          argTypes.push_back(v.getType());
        OpBuilder moduleBuilder = OpBuilder::atBlockEnd(module.getBody());
        auto kernel = func::FuncOp::create(
            moduleBuilder, op.getLoc(), "kiln_kernel",
            FunctionType::get(ctx, argTypes, {}));
        Block *body = kernel.addEntryBlock();
        OpBuilder b = OpBuilder::atBlockEnd(body);
        IRMapping mapping;
        mapping.map(args, body->getArguments());
        for (Value c : constants)
          mapping.map(c, b.clone(*c.getDefiningOp())->getResult(0));
        b.clone(*op, mapping);
        func::ReturnOp::create(b, op.getLoc());

        std::string key = getKernelKey(kernel);
        auto [it, inserted] = kernelsByKey.try_emplace(key, kernel);
        if (inserted) {
          kernel.setPrivate();
          kernel->setAttr(kKernelAttr, UnitAttr::get(ctx));
          // LLVM would otherwise inline every copy back into the caller.
          kernel->setAttr("passthrough",
                          ArrayAttr::get(ctx, {StringAttr::get(ctx, "noinline")}));
          kernel.setSymName("kiln_kernel_" + std::to_string(uniqueKernels++));
          symbols.insert(kernel);
        } else {
          kernel.erase();
          kernel = it->second;
        }
        OpBuilder callBuilder(op);
        func::CallOp::create(callBuilder, op.getLoc(), kernel, args);
        op->erase();
        ++launches;
      }
    }

    // Runtime library calls are launches too.
    module.walk([&](func::CallOp call) {
      if (call.getCallee().starts_with("kiln_rt_"))
        ++launches;
    });
    Builder b(ctx);
    module->setAttr("kiln.kernel_launches", b.getI64IntegerAttr(launches));
    module->setAttr("kiln.unique_kernels",
                    b.getI64IntegerAttr(uniqueKernels));
    kiln::addPassStatistic(getName(), numLaunches, "kiln-kernel-launches",
                           "kernel and runtime calls per run", launches);
    kiln::addPassStatistic(getName(), numUniqueKernels, "kiln-unique-kernels",
                           "kernel functions compiled", uniqueKernels);
  }
};
} // namespace
