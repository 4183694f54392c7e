//===- RuntimeCalls.cpp - the -kiln-linalg-to-runtime-calls pass ----------===//
//
// linalg.generic {library_call = "kiln_rt_..."} on memrefs
//   -> func.call @kiln_rt_...(memref<?x?xT, strided<[?, ?], offset: ?>>...)
// with one private declaration per name carrying llvm.emit_c_interface, so
// the runtime receives pointers to strided memref descriptors. A matmul
// operand whose indexing map permutes the entry point's dim order (folded
// by -kiln-fold-contraction-layouts) is passed as a memref.transpose view.
//
//===----------------------------------------------------------------------===//

#include "kiln/Codegen/Common/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/SymbolTable.h"

namespace kiln {
#define GEN_PASS_DEF_KILNLINALGTORUNTIMECALLS
#include "kiln/Codegen/Common/Passes.h.inc"
} // namespace kiln

using namespace mlir;

/// memref<?x...x?xT, strided<[?, ...], offset: ?>> of `type`'s rank.
static MemRefType getFullyDynamic(MemRefType type) {
  int64_t rank = type.getRank();
  SmallVector<int64_t> shape(rank, ShapedType::kDynamic);
  SmallVector<int64_t> strides(rank, ShapedType::kDynamic);
  auto layout =
      StridedLayoutAttr::get(type.getContext(), ShapedType::kDynamic, strides);
  return MemRefType::get(shape, type.getElementType(), layout,
                         type.getMemorySpace());
}

/// The linalg.fill of 0 that last wrote `op`'s (only) output, when nothing
/// else uses that buffer in between.
static linalg::FillOp getZeroFillOf(linalg::GenericOp op) {
  if (op.getNumDpsInits() != 1)
    return nullptr;
  Value out = op.getDpsInitOperand(0)->get();
  Operation *prev = op->getPrevNode();
  for (; prev; prev = prev->getPrevNode()) {
    auto fill = dyn_cast<linalg::FillOp>(prev);
    if (fill && fill.getDpsInitOperand(0)->get() == out) {
      auto zero = fill.getInputs().front().getDefiningOp<arith::ConstantOp>();
      auto value = zero ? dyn_cast<FloatAttr>(zero.getValue()) : FloatAttr();
      if (!value || !value.getValue().isZero())
        return nullptr;
      return fill;
    }
    if (llvm::is_contained(prev->getOperands(), out))
      return nullptr;
    // A view of the output between the fill and the call could alias it.
    for (Value operand : prev->getOperands())
      if (operand.getDefiningOp() &&
          llvm::is_contained(operand.getDefiningOp()->getOperands(), out))
        return nullptr;
  }
  return nullptr;
}

/// For a matmul entry point (kiln_rt_[batch_|batch2_]matmul_T_XY), the
/// loop dims each operand's dims must follow: batch loops, then the matrix
/// dims (loops [batch..., m, n, k]) as the transpose flags XY say.
static std::optional<SmallVector<SmallVector<unsigned>>>
getMatmulDimOrders(StringRef name, unsigned numLoops) {
  if (!name.contains("matmul_") || numLoops < 3 || name.size() < 3)
    return std::nullopt;
  unsigned numBatch = numLoops - 3;
  unsigned m = numBatch, n = numBatch + 1, k = numBatch + 2;
  bool transposeA = name[name.size() - 2] == 't';
  bool transposeB = name.back() == 't';
  SmallVector<SmallVector<unsigned>> orders(3);
  for (auto &order : orders)
    for (unsigned b = 0; b < numBatch; ++b)
      order.push_back(b);
  llvm::append_range(orders[0], transposeA ? SmallVector<unsigned>{k, m}
                                           : SmallVector<unsigned>{m, k});
  llvm::append_range(orders[1], transposeB ? SmallVector<unsigned>{n, k}
                                           : SmallVector<unsigned>{k, n});
  llvm::append_range(orders[2], SmallVector<unsigned>{m, n});
  return orders;
}

/// `operand` as read through `map`, viewed in the loop order `order`; null
/// when `map` reads other loops.
static Value viewInOrder(OpBuilder &b, Location loc, Value operand,
                         AffineMap map, ArrayRef<unsigned> order) {
  SmallVector<unsigned> permutation;
  for (unsigned dim : order)
    for (unsigned i = 0; i < map.getNumResults(); ++i)
      if (map.getDimPosition(i) == dim)
        permutation.push_back(i);
  if (permutation.size() != map.getNumResults())
    return nullptr;
  if (llvm::equal(permutation, llvm::seq<unsigned>(0, permutation.size())))
    return operand;
  return memref::TransposeOp::create(
      b, loc, operand,
      AffineMapAttr::get(
          AffineMap::getPermutationMap(permutation, b.getContext())));
}

namespace {
struct KilnLinalgToRuntimeCallsPass
    : kiln::impl::KilnLinalgToRuntimeCallsBase<KilnLinalgToRuntimeCallsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<linalg::GenericOp> calls;
    module.walk([&](linalg::GenericOp op) {
      std::optional<StringRef> name = op.getLibraryCall();
      if (name && name->starts_with("kiln_rt_"))
        calls.push_back(op);
    });
    for (linalg::GenericOp op : calls) {
      if (!op.hasPureBufferSemantics()) {
        op.emitOpError("runtime call on tensors: run after bufferization");
        return signalPassFailure();
      }
      // A zero fill of the output right before the call is folded into the
      // call: the `_set` entry points overwrite instead of accumulating.
      std::string name = op.getLibraryCall()->str();
      if (linalg::FillOp fill = getZeroFillOf(op))
        if (name.find("matmul") != std::string::npos) {
          fill.erase();
          name += "_set";
        }
      OpBuilder b(op);
      SmallVector<Value> operands;
      SmallVector<Type> types;
      std::optional<SmallVector<SmallVector<unsigned>>> orders =
          getMatmulDimOrders(*op.getLibraryCall(), op.getNumLoops());
      for (OpOperand &opOperand : op->getOpOperands()) {
        Value operand = opOperand.get();
        if (orders) {
          AffineMap map = op.getMatchingIndexingMap(&opOperand);
          unsigned index = opOperand.getOperandNumber();
          if (map.isProjectedPermutation() && index < orders->size())
            operand =
                viewInOrder(b, op.getLoc(), operand, map, (*orders)[index]);
          else
            operand = nullptr;
          if (!operand) {
            op.emitOpError("matmul runtime call with unexpected indexing "
                           "maps");
            return signalPassFailure();
          }
        }
        auto type = cast<MemRefType>(operand.getType());
        MemRefType dynamic = getFullyDynamic(type);
        operands.push_back(
            memref::CastOp::create(b, op.getLoc(), dynamic, operand));
        types.push_back(dynamic);
      }
      auto declaration = symbols.lookup<func::FuncOp>(name);
      FunctionType fnType = b.getFunctionType(types, {});
      if (!declaration) {
        OpBuilder moduleBuilder = OpBuilder::atBlockBegin(module.getBody());
        declaration =
            func::FuncOp::create(moduleBuilder, op.getLoc(), name, fnType);
        declaration.setPrivate();
        declaration->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                             UnitAttr::get(&getContext()));
        symbols.insert(declaration);
      } else if (declaration.getFunctionType() != fnType) {
        op.emitOpError("runtime call @")
            << name << " does not match its declaration";
        return signalPassFailure();
      }
      func::CallOp::create(b, op.getLoc(), declaration, operands);
      op.erase();
    }
  }
};
} // namespace
