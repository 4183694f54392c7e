//===- Attention.cpp - attention as calls of the CPU runtime --------------===//
//
//   %o, %m, %l = kiln.attention %q, %k, %v score(%x0, ...) steps [...]
// ->
//   %steps = arith.constant dense<[..., -1]> : tensor<Sxi64>
//   (each operand) bufferization.to_buffer ... read_only, memref.cast
//   %out = memref.alloc() ... (one per result)
//   func.call @kiln_rt_attention_f32(q, k, v, x0, x1, x2, x3, steps, o, m, l)
//   %o = bufferization.to_tensor %out restrict writable ...
//
// kiln_rt_attention.h states the calls: four score-operand slots (masks
// converted to 1.0 / 0.0 first; an unused slot passes q), the steps ended
// by -1. The call is a runtime step of the host program. An attention with
// more than four score operands is decomposed into the ops that compute it
// instead.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/Transforms/AttentionDecomposition.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace kiln;

namespace {

constexpr unsigned kScoreSlots = 4;

/// memref<?x...x?xT, strided<[?, ...], offset: ?>> of `rank`.
MemRefType getAnyView(int64_t rank, Type element) {
  SmallVector<int64_t> dynamic(rank, ShapedType::kDynamic);
  auto layout = StridedLayoutAttr::get(element.getContext(),
                                       ShapedType::kDynamic, dynamic);
  return MemRefType::get(dynamic, element, layout);
}

class CallWriter {
public:
  CallWriter(RewriterBase &rewriter, SymbolTable &symbols, Location loc)
      : rewriter(rewriter), symbols(symbols), loc(loc) {}

  /// `tensor` as a read-only view of any strides (f32 masks for i1 ones).
  Value input(Value tensor) {
    auto type = cast<RankedTensorType>(tensor.getType());
    if (type.getElementType().isInteger(1)) {
      type = RankedTensorType::get(type.getShape(), rewriter.getF32Type());
      tensor = ConvertOp::create(rewriter, loc, type, tensor);
    }
    SmallVector<int64_t> strides(type.getRank(), ShapedType::kDynamic);
    auto strided =
        MemRefType::get(type.getShape(), type.getElementType(),
                        StridedLayoutAttr::get(rewriter.getContext(),
                                               ShapedType::kDynamic, strides));
    Value buffer =
        bufferization::ToBufferOp::create(rewriter, loc, strided, tensor,
                                          /*read_only=*/true);
    return memref::CastOp::create(
        rewriter, loc, getAnyView(type.getRank(), type.getElementType()),
        buffer);
  }

  /// The steps, ended by -1, as a read-only i64 view.
  Value steps(ArrayRef<int64_t> steps) {
    SmallVector<int64_t> ended(steps);
    ended.push_back(-1);
    auto type = RankedTensorType::get({static_cast<int64_t>(ended.size())},
                                      rewriter.getI64Type());
    Value constant = arith::ConstantOp::create(
        rewriter, loc, type, DenseIntElementsAttr::get(type, ended));
    return input(constant);
  }

  /// A new buffer for a result of `type`, and its view.
  std::pair<Value, Value> output(RankedTensorType type) {
    auto bufferType = MemRefType::get(type.getShape(), type.getElementType());
    Value buffer = memref::AllocOp::create(rewriter, loc, bufferType);
    Value view = memref::CastOp::create(
        rewriter, loc, getAnyView(type.getRank(), type.getElementType()),
        buffer);
    return {buffer, view};
  }

  void call(StringRef name, ValueRange args) {
    auto callee = symbols.lookup<func::FuncOp>(name);
    if (!callee) {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(
          &cast<ModuleOp>(symbols.getOp()).getBodyRegion().front());
      callee = func::FuncOp::create(
          rewriter, loc, name,
          rewriter.getFunctionType(TypeRange(ValueRange(args)), {}));
      callee.setPrivate();
      // Compiled host code (the fallback of a host program) calls the
      // runtime's C interface.
      callee->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                      rewriter.getUnitAttr());
      symbols.insert(callee);
    }
    func::CallOp::create(rewriter, loc, callee, args);
  }

  Value result(Value buffer, Type type) {
    return bufferization::ToTensorOp::create(rewriter, loc, type, buffer,
                                             /*restrict=*/true,
                                             /*writable=*/true);
  }

private:
  RewriterBase &rewriter;
  SymbolTable &symbols;
  Location loc;
};

void lowerForward(RewriterBase &rewriter, SymbolTable &symbols,
                  AttentionOp op) {
  rewriter.setInsertionPoint(op);
  CallWriter w(rewriter, symbols, op.getLoc());
  SmallVector<Value> args = {w.input(op.getQuery()), w.input(op.getKey()),
                             w.input(op.getValue())};
  for (Value operand : op.getScoreOperands())
    args.push_back(w.input(operand));
  while (args.size() < 3 + kScoreSlots)
    args.push_back(args.front());
  args.push_back(w.steps(op.getScoreSteps()));
  SmallVector<Value> buffers;
  for (Value result : op->getResults()) {
    auto [buffer, view] = w.output(cast<RankedTensorType>(result.getType()));
    buffers.push_back(buffer);
    args.push_back(view);
  }
  w.call("kiln_rt_attention_f32", args);
  SmallVector<Value> results;
  for (auto [buffer, result] : llvm::zip(buffers, op->getResults()))
    results.push_back(w.result(buffer, result.getType()));
  rewriter.replaceOp(op, results);
}

void lowerBackward(RewriterBase &rewriter, SymbolTable &symbols,
                   AttentionGradOp op) {
  rewriter.setInsertionPoint(op);
  CallWriter w(rewriter, symbols, op.getLoc());
  SmallVector<Value> args;
  for (Value operand : op->getOperands().take_front(7))
    args.push_back(w.input(operand));
  for (Value operand : op.getScoreOperands())
    args.push_back(w.input(operand));
  while (args.size() < 7 + kScoreSlots)
    args.push_back(args.front());
  args.push_back(w.steps(op.getScoreSteps()));
  SmallVector<Value> buffers;
  for (Value result : op->getResults()) {
    auto [buffer, view] = w.output(cast<RankedTensorType>(result.getType()));
    buffers.push_back(buffer);
    args.push_back(view);
  }
  w.call("kiln_rt_attention_grad_f32", args);
  SmallVector<Value> results;
  for (auto [buffer, result] : llvm::zip(buffers, op->getResults()))
    results.push_back(w.result(buffer, result.getType()));
  rewriter.replaceOp(op, results);
}

} // namespace

void kiln::lowerAttention(RewriterBase &rewriter, ModuleOp module) {
  SmallVector<Operation *> ops;
  module.walk([&](Operation *op) {
    if (isa<AttentionOp, AttentionGradOp>(op))
      ops.push_back(op);
  });
  if (ops.empty())
    return;
  SymbolTable symbols(module);
  for (Operation *op : ops) {
    if (auto forward = dyn_cast<AttentionOp>(op)) {
      if (forward.getScoreOperands().size() > kScoreSlots)
        decomposeAttention(rewriter, forward);
      else
        lowerForward(rewriter, symbols, forward);
      continue;
    }
    auto backward = cast<AttentionGradOp>(op);
    if (backward.getScoreOperands().size() > kScoreSlots)
      decomposeAttentionGrad(rewriter, backward);
    else
      lowerBackward(rewriter, symbols, backward);
  }
}
