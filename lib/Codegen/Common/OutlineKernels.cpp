//===- OutlineKernels.cpp - the -kiln-outline-kernels pass ----------------===//
//
// linalg op on buffers  ->  func.call @kiln_kernel_N(operands)
//
// Linalg ops that carry one `kiln.kernel_id` (the loop nests of one fusion
// group) become one kernel, called where the last of them was: nothing
// between them may touch memory other than by allocating.
//
// Kernels are compared with OperationEquivalence, ignoring locations and
// value names (block arguments match by position): equal kernels are
// alpha-equivalent. A structural hash buckets the candidates.
//
//===----------------------------------------------------------------------===//

#include "SubsetKernels.h"

#include "Support/PassStatistics.h"
#include "kiln/Codegen/Common/Passes.h"
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"

namespace kiln {
#define GEN_PASS_DEF_KILNOUTLINEKERNELS
#include "kiln/Codegen/Common/Passes.h.inc"
} // namespace kiln

#include "kiln/Codegen/Common/PassStatistics.h.inc"

using namespace mlir;

/// Whether `value` is a constant that is cheaper to clone than to pass.
static bool isClonableConstant(Value value) {
  Operation *def = value.getDefiningOp();
  return def && def->getNumOperands() == 0 && def->getNumRegions() == 0 &&
         def->hasTrait<OpTrait::ConstantLike>();
}

/// A hash of the kernel's linalg ops (names, attributes, types; operands
/// by position), to bucket candidates before the full comparison.
static llvm::hash_code hashKernel(func::FuncOp kernel) {
  llvm::hash_code hash = llvm::hash_combine(kernel.getFunctionType());
  // The cloned constants come first; hash the linalg ops themselves.
  for (Operation &op : kernel.getBody().front())
    if (isa<linalg::LinalgOp>(op))
      hash = llvm::hash_combine(hash,
                                OperationEquivalence::computeHash(
                                    &op, OperationEquivalence::ignoreHashValue,
                                    OperationEquivalence::ignoreHashValue,
                                    OperationEquivalence::IgnoreLocations));
  return hash;
}

/// Whether the ops between the first and last of `unit` (in one block)
/// leave memory alone, so that the unit can run where its last op is.
static bool canRunTogether(ArrayRef<Operation *> unit) {
  llvm::SmallPtrSet<Operation *, 4> members(unit.begin(), unit.end());
  for (Operation *op = unit.front(); op != unit.back(); op = op->getNextNode())
    if (!members.contains(op) && !isMemoryEffectFree(op) &&
        !hasSingleEffect<MemoryEffects::Allocate>(op))
      return false;
  return true;
}

/// Whether `loop` can run whole as one kernel: a loop of a host function's
/// body over loop nests on buffers, which reads indices from buffers and
/// takes views at them (kiln.scatter_add's ordered loop). As a kernel, the
/// host code keeps no loop and runs as a host program, and the loop makes
/// one call instead of one per index.
static bool isKernelLoop(scf::ForOp loop) {
  // A loop that yields values would leave uses of them behind.
  if (!isa<func::FuncOp>(loop->getParentOp()) || loop.getNumResults() != 0)
    return false;
  bool hasLoopNest = false;
  WalkResult result =
      loop.getBody()->walk<WalkOrder::PreOrder>([&](Operation *op) {
        if (isa<linalg::LinalgOp>(op)) {
          hasLoopNest = true;
          return WalkResult::skip();
        }
        if (isa<scf::IfOp, scf::YieldOp, memref::LoadOp, memref::SubViewOp,
                memref::CastOp>(op) ||
            isa_and_nonnull<arith::ArithDialect>(op->getDialect()))
          return WalkResult::advance();
        return WalkResult::interrupt();
      });
  return hasLoopNest && !result.wasInterrupted();
}

/// The linalg ops of `func` grouped into kernels, in program order: ops
/// tagged with one kernel id in one block form one kernel when they can
/// run together; with `loops`, a loop that isKernelLoop is one kernel with
/// its nests; every other op is a kernel of its own.
static SmallVector<SmallVector<Operation *>> formKernels(func::FuncOp func,
                                                         bool loops) {
  SmallVector<SmallVector<Operation *>> units;
  llvm::DenseMap<std::pair<Block *, int64_t>, size_t> unitOfId;
  func.walk<WalkOrder::PreOrder>([&](Operation *walked) {
    if (auto loop = dyn_cast<scf::ForOp>(walked);
        loop && loops && isKernelLoop(loop)) {
      units.push_back({loop});
      return WalkResult::skip();
    }
    auto op = dyn_cast<linalg::LinalgOp>(walked);
    if (!op)
      return WalkResult::advance();
    auto id = op->getAttrOfType<IntegerAttr>(
        kiln::KilnDialect::KernelIdAttrHelper::getNameStr());
    if (id) {
      auto [it, inserted] = unitOfId.try_emplace(
          std::make_pair(op->getBlock(), id.getInt()), units.size());
      if (!inserted) {
        units[it->second].push_back(op);
        return WalkResult::skip();
      }
    }
    units.push_back({op});
    return WalkResult::skip();
  });
  SmallVector<SmallVector<Operation *>> kernels;
  for (SmallVector<Operation *> &unit : units) {
    if (canRunTogether(unit)) {
      kernels.push_back(std::move(unit));
      continue;
    }
    for (Operation *op : unit)
      kernels.push_back({op});
  }
  return kernels;
}

/// Whether two kernels are equal up to value names and locations.
static bool areEquivalentKernels(func::FuncOp a, func::FuncOp b) {
  return a.getFunctionType() == b.getFunctionType() &&
         OperationEquivalence::isRegionEquivalentTo(
             &a.getBody(), &b.getBody(), OperationEquivalence::IgnoreLocations);
}

void kiln::markAsKernel(func::FuncOp kernel) {
  MLIRContext *ctx = kernel.getContext();
  kernel.setPrivate();
  kernel->setAttr(kiln::KilnDialect::KernelAttrHelper::getNameStr(),
                  UnitAttr::get(ctx));
  // The memref signature, for -kiln-compact-kernel-abi once the types are
  // gone.
  SmallVector<Attribute> argTypeAttrs;
  for (Type type : kernel.getArgumentTypes())
    argTypeAttrs.push_back(TypeAttr::get(type));
  kernel->setAttr(kiln::KilnDialect::KernelArgsAttrHelper::getNameStr(),
                  ArrayAttr::get(ctx, argTypeAttrs));
  // LLVM would otherwise inline every copy back into the caller.
  kernel->setAttr("passthrough",
                  ArrayAttr::get(ctx, {StringAttr::get(ctx, "noinline")}));
}

namespace {
struct KilnOutlineKernelsPass
    : kiln::impl::KilnOutlineKernelsBase<KilnOutlineKernelsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    SymbolTable symbols(module);
    llvm::DenseMap<llvm::hash_code, SmallVector<func::FuncOp, 1>> buckets;
    kiln::KernelCalls calls;
    int64_t launches = 0, uniqueKernels = 0;

    SmallVector<func::FuncOp> funcs;
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isExternal() &&
          !func->hasAttr(kiln::KilnDialect::KernelAttrHelper::getNameStr()))
        funcs.push_back(func);

    for (func::FuncOp func : funcs) {
      for (SmallVector<Operation *> &unit : formKernels(func, loops)) {
        Operation *last = unit.back();
        Location loc = last->getLoc();
        // Arguments: operands and values the bodies capture, in order;
        // constants are cloned into the kernel instead.
        llvm::SetVector<Value> used;
        for (Operation *op : unit) {
          auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
          if (linalgOp && !linalgOp.hasPureBufferSemantics()) {
            op->emitOpError("on tensors: outline kernels after bufferization");
            return signalPassFailure();
          }
          used.insert(op->getOperands().begin(), op->getOperands().end());
          llvm::SetVector<Value> captured;
          getUsedValuesDefinedAbove(op->getRegions(), captured);
          used.insert(captured.begin(), captured.end());
        }
        SmallVector<Value> args, constants;
        for (Value v : used)
          (isClonableConstant(v) ? constants : args).push_back(v);
        SmallVector<Value> originals(args);

        // Views of one buffer at different places differ only in their
        // static offset: pass them with a dynamic offset so that their
        // kernels are one (an unrolled loop reads its steps at different
        // offsets).
        // (A loop's views inside are typed by its buffers' layouts: it
        // keeps them.)
        OpBuilder castBuilder(last);
        SmallVector<Type> argTypes;
        bool generalize = isa<linalg::LinalgOp>(last);
        for (Value &v : args) {
          auto type = dyn_cast<MemRefType>(v.getType());
          SmallVector<int64_t> strides;
          int64_t offset;
          if (generalize && type && type.getRank() > 0 &&
              succeeded(type.getStridesAndOffset(strides, offset)) &&
              !ShapedType::isDynamic(offset)) {
            // Identity layouts too: a buffer and a view of the same shape
            // and strides then share a kernel.
            auto general = MemRefType::get(
                type.getShape(), type.getElementType(),
                StridedLayoutAttr::get(ctx, ShapedType::kDynamic, strides),
                type.getMemorySpace());
            v = memref::CastOp::create(castBuilder, loc, general, v);
          }
          argTypes.push_back(v.getType());
        }
        OpBuilder moduleBuilder = OpBuilder::atBlockEnd(module.getBody());
        auto kernel =
            func::FuncOp::create(moduleBuilder, loc, "kiln_kernel",
                                 FunctionType::get(ctx, argTypes, {}));
        Block *body = kernel.addEntryBlock();
        OpBuilder b = OpBuilder::atBlockEnd(body);
        IRMapping mapping;
        // Inside, the op works on the arguments in their general types
        // (linalg ops take any strided layout).
        mapping.map(originals, body->getArguments());
        for (Value c : constants)
          mapping.map(c, b.clone(*c.getDefiningOp())->getResult(0));
        for (Operation *op : unit) {
          Operation *clone = b.clone(*op, mapping);
          clone->walk([](Operation *nested) {
            nested->removeAttr(
                kiln::KilnDialect::KernelIdAttrHelper::getNameStr());
          });
        }
        func::ReturnOp::create(b, loc);

        SmallVector<func::FuncOp, 1> &bucket = buckets[hashKernel(kernel)];
        func::FuncOp existing;
        if (dedup)
          for (func::FuncOp candidate : bucket)
            if (areEquivalentKernels(candidate, kernel))
              existing = candidate;
        if (!existing) {
          bucket.push_back(kernel);
          kiln::markAsKernel(kernel);
          kernel.setSymName("kiln_kernel_" + std::to_string(uniqueKernels++));
          symbols.insert(kernel);
        } else {
          kernel.erase();
          kernel = existing;
        }
        OpBuilder callBuilder(last);
        calls[kernel].push_back(
            func::CallOp::create(callBuilder, loc, kernel, args));
        for (Operation *op : unit)
          op->erase();
        ++launches;
      }
    }

    // A kernel that a larger one contains runs as that one; the rest are
    // numbered again in order.
    int64_t subsetKernels = dedup ? kiln::foldSubsetKernels(calls) : 0;
    if (subsetKernels > 0) {
      for (auto [index, entry] : llvm::enumerate(calls)) {
        auto &[kernel, kernelCalls] = entry;
        std::string name = "kiln_kernel_" + std::to_string(index);
        if (kernel.getSymName() == name)
          continue;
        kernel.setSymName(name);
        for (func::CallOp call : kernelCalls)
          call.setCallee(name);
      }
    }
    uniqueKernels = calls.size();

    // What stays in the host functions only sequences launches and
    // buffers: LLVM need not optimize it, and its fast instruction selector
    // generates it several times faster (a deep network's entry makes
    // hundreds of calls).
    for (func::FuncOp func : funcs)
      func->setAttr("passthrough",
                    ArrayAttr::get(ctx, {StringAttr::get(ctx, "noinline"),
                                         StringAttr::get(ctx, "optnone")}));

    // Runtime library calls are launches too.
    module.walk([&](func::CallOp call) {
      if (call.getCallee().starts_with("kiln_rt_"))
        ++launches;
    });
    Builder b(ctx);
    module->setAttr(kiln::KilnDialect::KernelLaunchesAttrHelper::getNameStr(),
                    b.getI64IntegerAttr(launches));
    module->setAttr(kiln::KilnDialect::UniqueKernelsAttrHelper::getNameStr(),
                    b.getI64IntegerAttr(uniqueKernels));
    kiln::addPassStatistic(*this, numLaunches, launches, kPassStatistics);
    kiln::addPassStatistic(*this, numUniqueKernels, uniqueKernels,
                           kPassStatistics);
    kiln::addPassStatistic(*this, numSubsetKernels, subsetKernels,
                           kPassStatistics);
  }
};
} // namespace
