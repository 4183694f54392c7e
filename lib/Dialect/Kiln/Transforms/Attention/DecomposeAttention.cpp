//===- DecomposeAttention.cpp - attention as matmuls and a softmax --------===//
//
// The forward: s = q kᵀ, rewritten by the score steps into s'; m = max(s'),
// l = sum(exp(s' - m)), o = (exp(s' - m) / l) v. The backward, with
// p = exp(s' - m) / l recomputed: dv = pᵀ do, dp = do vᵀ,
// ds' = p (dp - rowsum(p dp)), ds = ds' f'(s), dq = ds k, dk = dsᵀ q, where
// f'(s) (the steps' derivative) is carried beside s' as the steps are
// applied: a product or quotient scales it, a select zeroes it where the
// score is replaced.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/Transforms/AttentionDecomposition.h"
#include "kiln/Dialect/Kiln/Transforms/Passes.h"

namespace kiln {
#define GEN_PASS_DEF_KILNDECOMPOSEATTENTION
#include "kiln/Dialect/Kiln/Transforms/Passes.h.inc"
} // namespace kiln

using namespace mlir;
using namespace kiln;

namespace {

/// Builds the scores of one attention op and the pieces around them.
class AttentionBuilder {
public:
  AttentionBuilder(OpBuilder &b, Location loc, Value query, Value key,
                   ValueRange scoreOperands, ArrayRef<int64_t> steps)
      : b(b), loc(loc), query(query), key(key), scoreOperands(scoreOperands),
        steps(steps) {
    auto q = cast<RankedTensorType>(query.getType());
    auto k = cast<RankedTensorType>(key.getType());
    scoreType = RankedTensorType::get(
        {q.getDimSize(0), q.getDimSize(1), k.getDimSize(1)},
        q.getElementType());
    rowType = RankedTensorType::get({q.getDimSize(0), q.getDimSize(1)},
                                    q.getElementType());
  }

  /// s' = f(q kᵀ), and f'(q kᵀ) when `derivative` (null for 1 everywhere).
  std::pair<Value, Value> buildScores(bool derivative) {
    Value s = matmul(query, key, false, true, scoreType);
    Value t;
    auto one = [&] { return splat(scoreType, 1.0); };
    std::optional<SmallVector<AttentionScoreRewrite>> rewrites =
        decodeAttentionScoreSteps(steps, scoreOperands.size());
    for (const AttentionScoreRewrite &step : *rewrites) {
      Value x = step.a >= 0 ? operand(step.a) : Value();
      Value y = step.b >= 0 ? operand(step.b) : Value();
      switch (step.kind) {
      case AttentionScoreStep::Mul:
        s = MulOp::create(b, loc, s, x);
        if (derivative)
          t = t ? MulOp::create(b, loc, t, x).getResult() : x;
        break;
      case AttentionScoreStep::Div:
        s = DivOp::create(b, loc, s, x);
        if (derivative)
          t = DivOp::create(b, loc, t ? t : one(), x);
        break;
      case AttentionScoreStep::Add:
        s = AddOp::create(b, loc, s, x);
        break;
      case AttentionScoreStep::Sub:
        s = SubOp::create(b, loc, s, x);
        break;
      case AttentionScoreStep::SubFrom:
        s = SubOp::create(b, loc, x, s);
        if (derivative)
          t = NegOp::create(b, loc, t ? t : one());
        break;
      case AttentionScoreStep::Neg:
        s = NegOp::create(b, loc, s);
        if (derivative)
          t = NegOp::create(b, loc, t ? t : one());
        break;
      case AttentionScoreStep::Keep:
        s = SelectOp::create(b, loc, x, s, y);
        if (derivative)
          t = SelectOp::create(b, loc, x, t ? t : one(), splat(scoreType, 0.0));
        break;
      case AttentionScoreStep::Fill:
        s = SelectOp::create(b, loc, x, y, s);
        if (derivative)
          t = SelectOp::create(b, loc, x, splat(scoreType, 0.0), t ? t : one());
        break;
      }
    }
    return {s, t};
  }

  /// A [N, Tq] row statistic broadcast along the keys.
  Value alongRows(Value rows) {
    return BroadcastInDimOp::create(b, loc, scoreType, rows, ValueRange(),
                                    b.getDenseI64ArrayAttr({0, 1}));
  }

  Value rowSum(Value x) {
    return ReduceSumOp::create(b, loc, x, b.getDenseI64ArrayAttr({2}));
  }

  Value matmul(Value x, Value y, bool transposeX, bool transposeY, Type type) {
    return MatmulOp::create(b, loc, type, x, y, b.getBoolAttr(transposeX),
                            b.getBoolAttr(transposeY), MatmulPrecisionAttr());
  }

  Value splat(RankedTensorType type, double value) {
    return ConstantOp::create(
        b, loc, type,
        DenseElementsAttr::get(type,
                               FloatAttr::get(type.getElementType(), value)));
  }

  RankedTensorType scoreType, rowType;

private:
  /// Score operand `index` broadcast to the scores' shape.
  Value operand(int64_t index) {
    Value x = scoreOperands[index];
    auto type = cast<RankedTensorType>(x.getType());
    if (type.getShape() == scoreType.getShape())
      return x;
    return BroadcastInDimOp::create(
        b, loc,
        RankedTensorType::get(scoreType.getShape(), type.getElementType()), x,
        ValueRange(), b.getDenseI64ArrayAttr({0, 1, 2}));
  }

  OpBuilder &b;
  Location loc;
  Value query, key;
  ValueRange scoreOperands;
  ArrayRef<int64_t> steps;
};

} // namespace

void kiln::decomposeAttention(RewriterBase &rewriter, AttentionOp op) {
  rewriter.setInsertionPoint(op);
  AttentionBuilder a(rewriter, op.getLoc(), op.getQuery(), op.getKey(),
                     op.getScoreOperands(), op.getScoreSteps());
  Location loc = op.getLoc();
  Value s = a.buildScores(/*derivative=*/false).first;
  Value m =
      ReduceMaxOp::create(rewriter, loc, s, rewriter.getDenseI64ArrayAttr({2}));
  Value e = ExpOp::create(rewriter, loc,
                          SubOp::create(rewriter, loc, s, a.alongRows(m)));
  Value l = a.rowSum(e);
  Value p = DivOp::create(rewriter, loc, e, a.alongRows(l));
  Value o = a.matmul(p, op.getValue(), false, false, op.getResult().getType());
  rewriter.replaceOp(op, {o, m, l});
}

void kiln::decomposeAttentionGrad(RewriterBase &rewriter, AttentionGradOp op) {
  rewriter.setInsertionPoint(op);
  AttentionBuilder a(rewriter, op.getLoc(), op.getQuery(), op.getKey(),
                     op.getScoreOperands(), op.getScoreSteps());
  Location loc = op.getLoc();
  auto [s, t] = a.buildScores(/*derivative=*/true);
  Value e = ExpOp::create(
      rewriter, loc,
      SubOp::create(rewriter, loc, s, a.alongRows(op.getRowMax())));
  Value p = DivOp::create(rewriter, loc, e, a.alongRows(op.getRowSum()));
  Value dout = op.getResultGrad();
  Value dv = a.matmul(p, dout, true, false, op.getValue().getType());
  Value dp = a.matmul(dout, op.getValue(), false, true, a.scoreType);
  // rowsum(p dp), which equals rowsum(do o) but reads what the softmax's
  // row kernel holds anyway.
  Value rowDot = a.rowSum(MulOp::create(rewriter, loc, p, dp));
  Value ds = MulOp::create(
      rewriter, loc, p, SubOp::create(rewriter, loc, dp, a.alongRows(rowDot)));
  if (t)
    ds = MulOp::create(rewriter, loc, ds, t);
  Value dq = a.matmul(ds, op.getKey(), false, false, op.getQuery().getType());
  Value dk = a.matmul(ds, op.getQuery(), true, false, op.getKey().getType());
  rewriter.replaceOp(op, {dq, dk, dv});
}

namespace {
struct KilnDecomposeAttentionPass
    : kiln::impl::KilnDecomposeAttentionBase<KilnDecomposeAttentionPass> {
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      if (isa<AttentionOp, AttentionGradOp>(op))
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (Operation *op : ops) {
      if (auto attention = dyn_cast<AttentionOp>(op))
        decomposeAttention(rewriter, attention);
      else
        decomposeAttentionGrad(rewriter, cast<AttentionGradOp>(op));
    }
  }
};
} // namespace
