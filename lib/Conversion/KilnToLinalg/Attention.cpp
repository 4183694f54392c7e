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
// by -1. kiln.attention_grad is the same with its seven tensor operands
// first. The call is a runtime step of the host program. An op with more
// than four score operands is decomposed into the ops that compute it
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

/// `tensor` as a read-only buffer of its static shape and any strides (f32
/// masks for i1 ones).
Value readOnlyBuffer(RewriterBase &rewriter, Location loc, Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  if (type.getElementType().isInteger(1)) {
    type = RankedTensorType::get(type.getShape(), rewriter.getF32Type());
    tensor = ConvertOp::create(rewriter, loc, type, tensor);
  }
  return bufferization::ToBufferOp::create(
      rewriter, loc, getStridedView(type.getShape(), type.getElementType()),
      tensor, /*read_only=*/true);
}

/// `tensor` as a read-only view of any shape and strides (the runtime's C
/// interface).
Value readOnlyView(RewriterBase &rewriter, Location loc, Value tensor) {
  Value buffer = readOnlyBuffer(rewriter, loc, tensor);
  auto type = cast<MemRefType>(buffer.getType());
  return memref::CastOp::create(
      rewriter, loc, getAnyStridedView(type.getRank(), type.getElementType()),
      buffer);
}

/// Replaces `op` (kiln.attention or kiln.attention_grad) by a call of
/// `name`: its `numTensors` leading operands, the score slots, the steps,
/// then a new buffer per result.
template <typename OpTy>
void lowerToCall(RewriterBase &rewriter, SymbolTable &symbols, OpTy op,
                 StringRef name, unsigned numTensors) {
  rewriter.setInsertionPoint(op);
  Location loc = op.getLoc();
  SmallVector<Value> args;
  for (Value operand : op->getOperands().take_front(numTensors))
    args.push_back(readOnlyView(rewriter, loc, operand));
  for (Value operand : op.getScoreOperands())
    args.push_back(readOnlyView(rewriter, loc, operand));
  while (args.size() < numTensors + kScoreSlots)
    args.push_back(args.front());
  SmallVector<int64_t> steps(op.getScoreSteps());
  steps.push_back(-1);
  auto stepsType = RankedTensorType::get({static_cast<int64_t>(steps.size())},
                                         rewriter.getI64Type());
  args.push_back(readOnlyView(
      rewriter, loc,
      arith::ConstantOp::create(rewriter, loc, stepsType,
                                DenseIntElementsAttr::get(stepsType, steps))));
  SmallVector<Value> buffers;
  for (Type result : op->getResultTypes()) {
    auto type = cast<RankedTensorType>(result);
    Value buffer = memref::AllocOp::create(
        rewriter, loc, MemRefType::get(type.getShape(), type.getElementType()));
    buffers.push_back(buffer);
    args.push_back(memref::CastOp::create(
        rewriter, loc, getAnyStridedView(type.getRank(), type.getElementType()),
        buffer));
  }
  func::FuncOp callee = getOrDeclareRuntimeCall(rewriter, symbols, loc, name,
                                                TypeRange(ValueRange(args)));
  // Compiled host code (the fallback of a host program) calls the
  // runtime's C interface.
  callee->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                  rewriter.getUnitAttr());
  func::CallOp::create(rewriter, loc, callee, args);
  SmallVector<Value> results;
  for (auto [buffer, result] : llvm::zip(buffers, op->getResultTypes()))
    results.push_back(bufferization::ToTensorOp::create(
        rewriter, loc, result, buffer, /*restrict=*/true, /*writable=*/true));
  rewriter.replaceOp(op, results);
}

/// The largest head dim the GPU kernels take: a thread keeps one row of
/// an accumulator in registers.
constexpr int64_t kGpuMaxHeadDim = 128;

/// Replaces `op` by a call of `name` for -kiln-attention-to-gpu: every
/// tensor operand as a read-only view of its static shape, then a new
/// buffer per result; the steps in the call's kiln.score_steps.
template <typename OpTy>
void lowerToGpuCall(RewriterBase &rewriter, SymbolTable &symbols, OpTy op,
                    StringRef name) {
  rewriter.setInsertionPoint(op);
  Location loc = op.getLoc();
  SmallVector<Value> args;
  for (Value operand : op->getOperands())
    args.push_back(readOnlyBuffer(rewriter, loc, operand));
  SmallVector<Value> buffers;
  for (Type result : op->getResultTypes()) {
    auto type = cast<RankedTensorType>(result);
    buffers.push_back(memref::AllocOp::create(
        rewriter, loc,
        MemRefType::get(type.getShape(), type.getElementType())));
  }
  args.append(buffers);
  // One declaration per call: each has its own shapes.
  std::string unique = name.str();
  for (unsigned n = 0; symbols.lookup(unique); ++n)
    unique = (name + "_" + llvm::Twine(n)).str();
  func::FuncOp callee = getOrDeclareRuntimeCall(rewriter, symbols, loc, unique,
                                                TypeRange(ValueRange(args)));
  auto call = func::CallOp::create(rewriter, loc, callee, args);
  call->setAttr("kiln.score_steps", op.getScoreStepsAttr());
  SmallVector<Value> results;
  for (auto [buffer, result] : llvm::zip(buffers, op->getResultTypes()))
    results.push_back(bufferization::ToTensorOp::create(
        rewriter, loc, result, buffer, /*restrict=*/true, /*writable=*/true));
  rewriter.replaceOp(op, results);
}

/// Whether the GPU kernels take an attention with these q and v types.
bool fitsGpuKernels(Value query, Value value) {
  int64_t d = cast<RankedTensorType>(query.getType()).getShape()[2];
  int64_t dv = cast<RankedTensorType>(value.getType()).getShape()[2];
  return d <= kGpuMaxHeadDim && dv <= kGpuMaxHeadDim;
}

} // namespace

void kiln::lowerAttention(RewriterBase &rewriter, ModuleOp module,
                          bool forGpu) {
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
      if (forGpu && fitsGpuKernels(forward.getQuery(), forward.getValue()))
        lowerToGpuCall(rewriter, symbols, forward, "kiln_gpu_attention_f32");
      else if (forGpu || forward.getScoreOperands().size() > kScoreSlots)
        decomposeAttention(rewriter, forward);
      else
        lowerToCall(rewriter, symbols, forward, "kiln_rt_attention_f32", 3);
      continue;
    }
    auto backward = cast<AttentionGradOp>(op);
    if (forGpu && fitsGpuKernels(backward.getQuery(), backward.getValue()))
      lowerToGpuCall(rewriter, symbols, backward,
                     "kiln_gpu_attention_grad_f32");
    else if (forGpu || backward.getScoreOperands().size() > kScoreSlots)
      decomposeAttentionGrad(rewriter, backward);
    else
      lowerToCall(rewriter, symbols, backward, "kiln_rt_attention_grad_f32", 7);
  }
}
