//===- CompactKernelAbi.cpp - the -kiln-compact-kernel-abi pass -----------===//
//
// llvm.call @kiln_kernel_N(%alloc, %aligned, %offset, %size0, .., %stride0, ..)
//   ->  %p = llvm.getelementptr %aligned[%offset]
//       llvm.call @kiln_kernel_N(%p)
//
// The kernel's buffers have static sizes and strides, so inside it the
// dropped scalars are constants, and the offset is zero.
//
//===----------------------------------------------------------------------===//

#include "kiln/Codegen/CPU/CompactKernelAbi.h"
#include "Support/PassStatistics.h"
#include "kiln/Codegen/CPU/Passes.h"
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"

#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/BitVector.h"

namespace kiln {
#define GEN_PASS_DEF_KILNCOMPACTKERNELABI
#include "kiln/Codegen/CPU/Passes.h.inc"
} // namespace kiln

#include "kiln/Codegen/CPU/PassStatistics.h.inc"

using namespace mlir;

namespace {
/// How one argument of the memref signature is passed in the LLVM one.
struct ArgLayout {
  unsigned first = 0; // its first LLVM argument
  unsigned count = 1; // how many LLVM arguments it takes
  /// Set when it is a buffer that becomes one pointer.
  Type elementType;
  SmallVector<int64_t> sizes, strides;

  bool isCompacted() const { return static_cast<bool>(elementType); }
};
} // namespace

/// The LLVM type of a memref element, when a pointer to it can be offset by
/// a GEP over that type (which is how the memref lowering addresses it).
static Type getLLVMElementType(Type type) {
  if (isa<FloatType>(type) || isa<IntegerType>(type))
    return type;
  if (isa<IndexType>(type))
    return IntegerType::get(type.getContext(), 64);
  return {};
}

bool kiln::isCompactKernelArgument(MemRefType type) {
  int64_t offset;
  SmallVector<int64_t> strides;
  // The caller adds the offset to the pointer: a static nonzero one would
  // then be added twice.
  return getLLVMElementType(type.getElementType()) && type.hasStaticShape() &&
         succeeded(type.getStridesAndOffset(strides, offset)) &&
         llvm::none_of(strides, ShapedType::isDynamic) &&
         (offset == 0 || ShapedType::isDynamic(offset));
}

/// The argument layouts of `kernel`, or nothing when its recorded memref
/// signature does not explain its LLVM signature.
static std::optional<SmallVector<ArgLayout>>
computeLayouts(LLVM::LLVMFuncOp kernel, ArrayAttr memrefSignature) {
  SmallVector<ArgLayout> layouts;
  ArrayRef<Type> llvmArgs = kernel.getFunctionType().getParams();
  auto ptrType = LLVM::LLVMPointerType::get(kernel.getContext());
  auto i64 = IntegerType::get(kernel.getContext(), 64);
  unsigned next = 0;
  for (Attribute attr : memrefSignature) {
    auto typeAttr = dyn_cast<TypeAttr>(attr);
    if (!typeAttr)
      return std::nullopt;
    ArgLayout layout;
    layout.first = next;
    if (auto memref = dyn_cast<MemRefType>(typeAttr.getValue())) {
      layout.count = 3 + 2 * memref.getRank();
      if (next + layout.count > llvmArgs.size())
        return std::nullopt;
      // The descriptor convention: two pointers, then i64s.
      for (unsigned i = 0; i < layout.count; ++i)
        if (llvmArgs[next + i] != (i < 2 ? Type(ptrType) : Type(i64)))
          return std::nullopt;
      if (kiln::isCompactKernelArgument(memref)) {
        int64_t offset;
        SmallVector<int64_t> strides;
        (void)memref.getStridesAndOffset(strides, offset);
        layout.elementType = getLLVMElementType(memref.getElementType());
        layout.sizes.assign(memref.getShape().begin(), memref.getShape().end());
        layout.strides = std::move(strides);
      }
    } else if (isa<UnrankedMemRefType>(typeAttr.getValue())) {
      return std::nullopt;
    }
    next += layout.count;
    layouts.push_back(std::move(layout));
  }
  if (next != llvmArgs.size())
    return std::nullopt;
  return layouts;
}

/// The functions of `module` that something other than a direct call with
/// their argument count refers to.
static llvm::DenseSet<StringAttr> getEscapingFunctions(ModuleOp module) {
  llvm::DenseSet<StringAttr> escaping;
  SymbolTable symbols(module);
  std::optional<SymbolTable::UseRange> uses =
      SymbolTable::getSymbolUses(&module.getBodyRegion());
  for (const SymbolTable::SymbolUse &use : *uses) {
    StringAttr name = use.getSymbolRef().getRootReference();
    auto call = dyn_cast<LLVM::CallOp>(use.getUser());
    auto callee = symbols.lookup<LLVM::LLVMFuncOp>(name);
    if (!call || !callee || call.getCallee() != name.getValue() ||
        call.getCalleeOperands().size() != callee.getNumArguments())
      escaping.insert(name);
  }
  return escaping;
}

/// Replaces the kernel's arguments: one pointer per compacted buffer, whose
/// descriptor fields become constants.
static void rewriteKernel(LLVM::LLVMFuncOp kernel,
                          ArrayRef<ArgLayout> layouts) {
  Block &entry = kernel.getBody().front();
  unsigned oldCount = entry.getNumArguments();
  OpBuilder b = OpBuilder::atBlockBegin(&entry);
  Location loc = kernel.getLoc();
  auto ptrType = LLVM::LLVMPointerType::get(kernel.getContext());
  auto i64 = b.getI64Type();
  auto constant = [&](int64_t value) -> Value {
    return LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(value));
  };
  SmallVector<Type> newTypes;
  for (const ArgLayout &layout : layouts) {
    if (!layout.isCompacted()) {
      for (unsigned i = 0; i < layout.count; ++i) {
        BlockArgument old = entry.getArgument(layout.first + i);
        old.replaceAllUsesWith(entry.addArgument(old.getType(), old.getLoc()));
        newTypes.push_back(old.getType());
      }
      continue;
    }
    BlockArgument allocated = entry.getArgument(layout.first);
    Value pointer = entry.addArgument(ptrType, allocated.getLoc());
    newTypes.push_back(ptrType);
    allocated.replaceAllUsesWith(pointer);
    entry.getArgument(layout.first + 1).replaceAllUsesWith(pointer);
    Value zero = constant(0);
    entry.getArgument(layout.first + 2).replaceAllUsesWith(zero);
    unsigned rank = layout.sizes.size();
    for (unsigned d = 0; d < rank; ++d) {
      BlockArgument size = entry.getArgument(layout.first + 3 + d);
      BlockArgument stride = entry.getArgument(layout.first + 3 + rank + d);
      if (!size.use_empty())
        size.replaceAllUsesWith(constant(layout.sizes[d]));
      if (!stride.use_empty())
        stride.replaceAllUsesWith(constant(layout.strides[d]));
    }
  }
  entry.eraseArguments(0, oldCount);
  kernel.setFunctionType(LLVM::LLVMFunctionType::get(
      kernel.getFunctionType().getReturnType(), newTypes));
  // Attributes of the old arguments do not describe the new ones.
  kernel.removeArgAttrsAttr();
}

/// Erases the definitions of `values`, and then of their operands, as long
/// as they are unused and have no effects.
static void eraseDeadDefinitions(ArrayRef<Value> values) {
  SmallVector<Operation *> worklist;
  for (Value value : values)
    if (Operation *def = value.getDefiningOp())
      worklist.push_back(def);
  // An op can be reached twice; erased ones are only compared, never read.
  llvm::SmallPtrSet<Operation *, 16> erased;
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    if (erased.contains(op) || !op->use_empty() || !isMemoryEffectFree(op) ||
        op->getNumRegions() != 0)
      continue;
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp())
        worklist.push_back(def);
    erased.insert(op);
    op->erase();
  }
}

/// Passes the offset buffer pointers in place of the descriptors.
static void rewriteCall(LLVM::CallOp call, ArrayRef<ArgLayout> layouts) {
  OpBuilder b(call);
  auto ptrType = LLVM::LLVMPointerType::get(call.getContext());
  SmallVector<Value> oldOperands(call.getCalleeOperands());
  SmallVector<Value> newOperands;
  for (const ArgLayout &layout : layouts) {
    if (!layout.isCompacted()) {
      llvm::append_range(
          newOperands,
          ArrayRef<Value>(oldOperands).slice(layout.first, layout.count));
      continue;
    }
    Value aligned = oldOperands[layout.first + 1];
    Value offset = oldOperands[layout.first + 2];
    newOperands.push_back(LLVM::GEPOp::create(b, call.getLoc(), ptrType,
                                              layout.elementType, aligned,
                                              ValueRange{offset}));
  }
  call.getCalleeOperandsMutable().assign(newOperands);
  // The host function is optnone: nothing else removes the descriptor
  // plumbing that no call reads any more.
  eraseDeadDefinitions(oldOperands);
}

namespace {
struct KilnCompactKernelAbiPass
    : kiln::impl::KilnCompactKernelAbiBase<KilnCompactKernelAbiPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<std::pair<LLVM::LLVMFuncOp, SmallVector<ArgLayout>>> kernels;
    llvm::DenseSet<StringAttr> escaping = getEscapingFunctions(module);
    for (auto kernel : module.getOps<LLVM::LLVMFuncOp>()) {
      auto signature = kernel->getAttrOfType<ArrayAttr>(
          kiln::KilnDialect::KernelArgsAttrHelper::getNameStr());
      if (!signature || kernel.isExternal() || kernel.isVarArg() ||
          escaping.contains(kernel.getSymNameAttr()))
        continue;
      std::optional<SmallVector<ArgLayout>> layouts =
          computeLayouts(kernel, signature);
      if (!layouts || llvm::none_of(*layouts, [](const ArgLayout &layout) {
            return layout.isCompacted();
          }))
        continue;
      kernels.emplace_back(kernel, std::move(*layouts));
    }

    llvm::StringMap<ArrayRef<ArgLayout>> layoutsByName;
    for (auto &[kernel, layouts] : kernels) {
      rewriteKernel(kernel, layouts);
      layoutsByName[kernel.getName()] = layouts;
    }
    SmallVector<LLVM::CallOp> calls;
    module.walk([&](LLVM::CallOp call) {
      std::optional<StringRef> callee = call.getCallee();
      if (callee && layoutsByName.count(*callee))
        calls.push_back(call);
    });
    for (LLVM::CallOp call : calls)
      rewriteCall(call, layoutsByName.lookup(*call.getCallee()));

    kiln::addPassStatistic(*this, numCompactedKernels, kernels.size(),
                           kPassStatistics);
  }
};
} // namespace
