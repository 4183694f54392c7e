//===- AttentionReference.cpp - kiln.attention in the interpreter ---------===//
//
// Scores row by row: s_j = q_i · k_j, rewritten by the steps into s'_j with
// derivative t_j; m = max_j s'_j (NaN wins), l = sum_j exp(s'_j - m),
// p_j = exp(s'_j - m) / l, o = sum_j p_j v_j. The gradient takes m and l
// as given: dv_j += p_j do_i, dp_j = do_i · v_j, ds_j = p_j (dp_j - sum_j
// p_j dp_j) t_j, dq_i = sum_j ds_j k_j, dk_j += ds_j q_i.
//
//===----------------------------------------------------------------------===//

#include "AttentionReference.h"

#include <cmath>

using namespace mlir;
using namespace kiln;
using kiln::reference::Buffer;

namespace {

llvm::Error attentionError(Operation *op, const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 op->getName().getStringRef().str() + ": " +
                                     message);
}

/// The scores of one query row, rewritten, with their derivative.
class ScoreRows {
public:
  ScoreRows(ArrayRef<int64_t> steps, ArrayRef<const Buffer *> operands,
            const Buffer &q, const Buffer &k)
      : rewrites(*decodeAttentionScoreSteps(steps, operands.size())),
        operands(operands), q(q), k(k) {}

  /// s' and t for batch n, query i, over every key.
  void compute(int64_t n, int64_t i, std::vector<double> &s,
               std::vector<double> &t) const {
    int64_t tq = q.shape[1], d = q.shape[2], tk = k.shape[1];
    s.assign(tk, 0.0);
    t.assign(tk, 1.0);
    for (int64_t j = 0; j < tk; ++j) {
      double sum = 0;
      for (int64_t e = 0; e < d; ++e)
        sum += q.data[(n * tq + i) * d + e] * k.data[(n * tk + j) * d + e];
      s[j] = sum;
    }
    for (const AttentionScoreRewrite &step : rewrites)
      for (int64_t j = 0; j < tk; ++j) {
        double x = step.a >= 0 ? at(step.a, n, i, j) : 0.0;
        double y = step.b >= 0 ? at(step.b, n, i, j) : 0.0;
        switch (step.kind) {
        case AttentionScoreStep::Mul:
          s[j] *= x;
          t[j] *= x;
          break;
        case AttentionScoreStep::Div:
          s[j] /= x;
          t[j] /= x;
          break;
        case AttentionScoreStep::Add:
          s[j] += x;
          break;
        case AttentionScoreStep::Sub:
          s[j] -= x;
          break;
        case AttentionScoreStep::SubFrom:
          s[j] = x - s[j];
          t[j] = -t[j];
          break;
        case AttentionScoreStep::Neg:
          s[j] = -s[j];
          t[j] = -t[j];
          break;
        case AttentionScoreStep::Keep:
          if (x == 0.0) {
            s[j] = y;
            t[j] = 0.0;
          }
          break;
        case AttentionScoreStep::Fill:
          if (x != 0.0) {
            s[j] = y;
            t[j] = 0.0;
          }
          break;
        }
      }
  }

private:
  /// Score operand `index` at (n, i, j), read broadcast.
  double at(int64_t index, int64_t n, int64_t i, int64_t j) const {
    const Buffer &x = *operands[index];
    int64_t a = x.shape[0] == 1 ? 0 : n, b = x.shape[1] == 1 ? 0 : i,
            c = x.shape[2] == 1 ? 0 : j;
    return x.data[(a * x.shape[1] + b) * x.shape[2] + c];
  }

  SmallVector<AttentionScoreRewrite> rewrites;
  ArrayRef<const Buffer *> operands;
  const Buffer &q, &k;
};

Buffer zeros(DType dtype, std::vector<int64_t> shape) {
  Buffer b;
  b.dtype = dtype;
  int64_t size = 1;
  for (int64_t d : shape)
    size *= d;
  b.data.assign(size, 0.0);
  b.shape = std::move(shape);
  return b;
}

} // namespace

llvm::Expected<std::vector<Buffer>>
kiln::reference::evaluateAttention(AttentionOp op,
                                   ArrayRef<const Buffer *> in) {
  if (in.size() != op->getNumOperands() ||
      !decodeAttentionScoreSteps(op.getScoreSteps(), in.size() - 3))
    return attentionError(op, "malformed operands");
  const Buffer &q = *in[0], &k = *in[1], &v = *in[2];
  int64_t n = q.shape[0], tq = q.shape[1], tk = k.shape[1], dv = v.shape[2];
  ScoreRows rows(op.getScoreSteps(), in.drop_front(3), q, k);
  Buffer out = zeros(DType::F32, {n, tq, dv});
  Buffer maxima = zeros(DType::F32, {n, tq}), sums = zeros(DType::F32, {n, tq});
  std::vector<double> s, t;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t i = 0; i < tq; ++i) {
      rows.compute(b, i, s, t);
      double m = -INFINITY;
      for (double x : s)
        m = kiln::maximumOf(m, x);
      double l = 0;
      for (double x : s)
        l += std::exp(x - m);
      for (int64_t j = 0; j < tk; ++j) {
        double p = std::exp(s[j] - m) / l;
        for (int64_t e = 0; e < dv; ++e)
          out.data[(b * tq + i) * dv + e] += p * v.data[(b * tk + j) * dv + e];
      }
      maxima.data[b * tq + i] = m;
      sums.data[b * tq + i] = l;
    }
  std::vector<Buffer> results;
  results.push_back(std::move(out));
  results.push_back(std::move(maxima));
  results.push_back(std::move(sums));
  return results;
}

llvm::Expected<std::vector<Buffer>>
kiln::reference::evaluateAttentionGrad(AttentionGradOp op,
                                       ArrayRef<const Buffer *> in) {
  if (in.size() != op->getNumOperands() ||
      !decodeAttentionScoreSteps(op.getScoreSteps(), in.size() - 7))
    return attentionError(op, "malformed operands");
  const Buffer &q = *in[0], &k = *in[1], &v = *in[2], &maxima = *in[4],
               &sums = *in[5], &dout = *in[6];
  int64_t n = q.shape[0], tq = q.shape[1], d = q.shape[2], tk = k.shape[1],
          dv = v.shape[2];
  ScoreRows rows(op.getScoreSteps(), in.drop_front(7), q, k);
  Buffer dq = zeros(DType::F32, {n, tq, d}), dk = zeros(DType::F32, {n, tk, d}),
         dvOut = zeros(DType::F32, {n, tk, dv});
  std::vector<double> s, t, p(tk), dp(tk);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t i = 0; i < tq; ++i) {
      rows.compute(b, i, s, t);
      double m = maxima.data[b * tq + i], l = sums.data[b * tq + i];
      double rowDot = 0;
      for (int64_t j = 0; j < tk; ++j) {
        p[j] = std::exp(s[j] - m) / l;
        double sum = 0;
        for (int64_t e = 0; e < dv; ++e)
          sum +=
              dout.data[(b * tq + i) * dv + e] * v.data[(b * tk + j) * dv + e];
        dp[j] = sum;
        rowDot += p[j] * dp[j];
        for (int64_t e = 0; e < dv; ++e)
          dvOut.data[(b * tk + j) * dv + e] +=
              p[j] * dout.data[(b * tq + i) * dv + e];
      }
      for (int64_t j = 0; j < tk; ++j) {
        double ds = p[j] * (dp[j] - rowDot) * t[j];
        for (int64_t e = 0; e < d; ++e) {
          dq.data[(b * tq + i) * d + e] += ds * k.data[(b * tk + j) * d + e];
          dk.data[(b * tk + j) * d + e] += ds * q.data[(b * tq + i) * d + e];
        }
      }
    }
  std::vector<Buffer> results;
  results.push_back(std::move(dq));
  results.push_back(std::move(dk));
  results.push_back(std::move(dvOut));
  return results;
}
