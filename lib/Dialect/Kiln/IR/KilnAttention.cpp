//===- KilnAttention.cpp - kiln.attention and kiln.attention_grad ---------===//
//
// The verifiers of the two attention ops and the decoding of their score
// rewrites, which -kiln-fuse-attention writes and every lowering reads.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

using namespace mlir;
using namespace kiln;

std::optional<SmallVector<AttentionScoreRewrite>>
kiln::decodeAttentionScoreSteps(ArrayRef<int64_t> steps, unsigned numOperands) {
  if (steps.size() % 3 != 0)
    return std::nullopt;
  SmallVector<AttentionScoreRewrite> rewrites;
  auto inRange = [&](int64_t index) {
    return index >= 0 && index < static_cast<int64_t>(numOperands);
  };
  for (size_t i = 0; i < steps.size(); i += 3) {
    int64_t kind = steps[i], a = steps[i + 1], b = steps[i + 2];
    if (kind < 0 || kind > static_cast<int64_t>(AttentionScoreStep::Neg))
      return std::nullopt;
    auto step = static_cast<AttentionScoreStep>(kind);
    bool usesA = step != AttentionScoreStep::Neg;
    bool usesB =
        step == AttentionScoreStep::Keep || step == AttentionScoreStep::Fill;
    if (usesA != inRange(a) || (!usesA && a != -1) || usesB != inRange(b) ||
        (!usesB && b != -1))
      return std::nullopt;
    rewrites.push_back({step, a, b});
  }
  return rewrites;
}

/// Checks q [N, Tq, D], k [N, Tk, D], v [N, Tk, Dv] (f32, static), the score
/// operands and their rewrites; returns [N, Tq, Tk].
static FailureOr<SmallVector<int64_t, 3>>
verifyAttentionOperands(Operation *op, Value query, Value key, Value value,
                        ValueRange scoreOperands, ArrayRef<int64_t> steps) {
  auto q = cast<RankedTensorType>(query.getType());
  auto k = cast<RankedTensorType>(key.getType());
  auto v = cast<RankedTensorType>(value.getType());
  for (RankedTensorType type : {q, k, v}) {
    if (type.getRank() != 3 || !type.hasStaticShape())
      return op->emitOpError("takes q, k and v of static rank-3 shapes, not ")
             << type;
    if (!type.getElementType().isF32())
      return op->emitOpError("takes f32 q, k and v, not ") << type;
  }
  if (k.getDimSize(0) != q.getDimSize(0) || v.getDimSize(0) != q.getDimSize(0))
    return op->emitOpError("takes q, k and v of one batch size");
  if (k.getDimSize(2) != q.getDimSize(2))
    return op->emitOpError("takes q and k of one head dim");
  if (v.getDimSize(1) != k.getDimSize(1))
    return op->emitOpError("takes as many values as keys");
  SmallVector<int64_t, 3> scores = {q.getDimSize(0), q.getDimSize(1),
                                    k.getDimSize(1)};
  std::optional<SmallVector<AttentionScoreRewrite>> rewrites =
      decodeAttentionScoreSteps(steps, scoreOperands.size());
  if (!rewrites)
    return op->emitOpError("has malformed score_steps: triples [kind, a, b] "
                           "with kinds 0 to 7 and operand indices in range");
  for (auto [index, operand] : llvm::enumerate(scoreOperands)) {
    auto type = cast<RankedTensorType>(operand.getType());
    bool fits = type.getRank() == 3;
    for (int64_t d = 0; fits && d < 3; ++d)
      fits = type.getDimSize(d) == 1 || type.getDimSize(d) == scores[d];
    if (!fits)
      return op->emitOpError("score operand #")
             << index << " of type " << type
             << " does not broadcast to the scores' [" << scores[0] << ", "
             << scores[1] << ", " << scores[2] << "]";
  }
  for (const AttentionScoreRewrite &rewrite : *rewrites) {
    auto element = [&](int64_t index) {
      return cast<RankedTensorType>(scoreOperands[index].getType())
          .getElementType();
    };
    bool masked = rewrite.kind == AttentionScoreStep::Keep ||
                  rewrite.kind == AttentionScoreStep::Fill;
    if (rewrite.kind == AttentionScoreStep::Neg)
      continue;
    if (masked && !element(rewrite.a).isInteger(1))
      return op->emitOpError("masks score operand #")
             << rewrite.a << ", which is not i1";
    int64_t number = masked ? rewrite.b : rewrite.a;
    if (!element(number).isF32())
      return op->emitOpError("reads score operand #")
             << number << " as a number, but it is not f32";
  }
  return scores;
}

static LogicalResult checkType(Operation *op, Value v, ArrayRef<int64_t> shape,
                               StringRef name) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getShape() != shape || !type.getElementType().isF32())
    return op->emitOpError("expects ")
           << name << " of type "
           << RankedTensorType::get(shape, Float32Type::get(op->getContext()))
           << ", not " << type;
  return success();
}

/// The checks both ops share: the operands, and the attention's result and
/// row statistics (results of kiln.attention, operands of its gradient).
template <typename OpTy> static LogicalResult verifyAttentionParts(OpTy op) {
  FailureOr<SmallVector<int64_t, 3>> scores =
      verifyAttentionOperands(op, op.getQuery(), op.getKey(), op.getValue(),
                              op.getScoreOperands(), op.getScoreSteps());
  if (failed(scores))
    return failure();
  int64_t n = (*scores)[0], tq = (*scores)[1];
  int64_t dv = op.getValue().getType().getDimSize(2);
  if (failed(checkType(op, op.getResult(), {n, tq, dv}, "a result")) ||
      failed(checkType(op, op.getRowMax(), {n, tq}, "row_max")) ||
      failed(checkType(op, op.getRowSum(), {n, tq}, "row_sum")))
    return failure();
  return success();
}

template <typename OpTy>
static SmallVector<int64_t, 3> getScoreShapeOf(OpTy op) {
  return {op.getQuery().getType().getDimSize(0),
          op.getQuery().getType().getDimSize(1),
          op.getKey().getType().getDimSize(1)};
}

SmallVector<int64_t, 3> AttentionOp::getScoreShape() {
  return getScoreShapeOf(*this);
}

SmallVector<int64_t, 3> AttentionGradOp::getScoreShape() {
  return getScoreShapeOf(*this);
}

LogicalResult AttentionOp::verify() { return verifyAttentionParts(*this); }

LogicalResult AttentionGradOp::verify() {
  if (failed(verifyAttentionParts(*this)))
    return failure();
  int64_t dv = getValue().getType().getDimSize(2);
  SmallVector<int64_t, 3> scores = getScoreShape();
  auto shapeOf = [](Value v) {
    return cast<RankedTensorType>(v.getType()).getShape();
  };
  if (failed(checkType(*this, getResultGrad(), {scores[0], scores[1], dv},
                       "a result_grad")) ||
      failed(checkType(*this, getQueryGrad(), shapeOf(getQuery()),
                       "a query_grad")) ||
      failed(checkType(*this, getKeyGrad(), shapeOf(getKey()), "a key_grad")) ||
      failed(checkType(*this, getValueGrad(), shapeOf(getValue()),
                       "a value_grad")))
    return failure();
  return success();
}
