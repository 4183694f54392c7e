//===- AttentionTest.cpp - the runtime's blockwise attention kernels ------===//
//
// kiln_rt_attention_f32 and kiln_rt_attention_grad_f32 on their own, against
// a direct double-precision computation: operands in odd strides (k stored
// transposed), score operands read broadcast (a [1, 1, 1] scale, a
// [1, Tq, Tk] mask, a [N, 1, Tk] bias), shapes over several blocks, rows
// whose first key block is all masked; and malformed steps, which give NaN
// results rather than reading past the operands.
//
//===----------------------------------------------------------------------===//

#include "kiln_rt/kiln_rt_attention.h"

#include "gtest/gtest.h"

#include <cmath>
#include <random>
#include <vector>

namespace {

/// A rank-3 tensor stored with the given dim order (perm[0] outermost).
struct Tensor3 {
  std::vector<float> storage;
  kiln_rt_memref3d_f32 desc;
  float &at(int64_t a, int64_t b, int64_t c) {
    return storage[desc.offset + a * desc.strides[0] + b * desc.strides[1] +
                   c * desc.strides[2]];
  }
};

Tensor3 make(int64_t d0, int64_t d1, int64_t d2, std::mt19937 *rng,
             bool swapInner = false) {
  Tensor3 t;
  t.storage.assign(d0 * d1 * d2 + 3, 0.0f);
  int64_t offset = 3;
  int64_t s1 = swapInner ? 1 : d2, s2 = swapInner ? d1 : 1;
  t.desc = {t.storage.data(),
            t.storage.data(),
            offset,
            {d0, d1, d2},
            {d1 * d2, s1, s2}};
  if (rng) {
    std::normal_distribution<float> dist;
    for (int64_t a = 0; a < d0; ++a)
      for (int64_t b = 0; b < d1; ++b)
        for (int64_t c = 0; c < d2; ++c)
          t.at(a, b, c) = dist(*rng);
  }
  return t;
}

struct Rows {
  std::vector<float> storage;
  kiln_rt_memref2d_f32 desc;
};

Rows makeRows(int64_t n, int64_t t) {
  Rows r;
  r.storage.assign(n * t, 0.0f);
  r.desc = {r.storage.data(), r.storage.data(), 0, {n, t}, {t, 1}};
  return r;
}

struct Steps {
  std::vector<int64_t> storage;
  kiln_rt_memref1d_i64 desc;
  explicit Steps(std::vector<int64_t> steps) : storage(std::move(steps)) {
    desc = {storage.data(),
            storage.data(),
            0,
            {static_cast<int64_t>(storage.size())},
            {1}};
  }
};

class AttentionKernelTest : public ::testing::Test {
protected:
  static constexpr int64_t n = 3, tq = 150, tk = 140, d = 16, dv = 12;
  std::mt19937 rng{7};
  Tensor3 q = make(n, tq, d, &rng), k = make(n, tk, d, &rng, true),
          v = make(n, tk, dv, &rng), dout = make(n, tq, dv, &rng);
  Tensor3 scale = make(1, 1, 1, nullptr), keep = make(1, tq, tk, nullptr),
          bias = make(n, 1, tk, &rng), fill = make(1, 1, 1, nullptr);

  void SetUp() override {
    scale.at(0, 0, 0) = 0.25f;
    fill.at(0, 0, 0) = -INFINITY;
    // Row i sees keys j >= i - 10: rows past 138 see none (NaN).
    for (int64_t i = 0; i < tq; ++i)
      for (int64_t j = 0; j < tk; ++j)
        keep.at(0, i, j) = j >= i - 10 ? 1.0f : 0.0f;
  }

  // s * scale + bias, kept where the mask is set, else -inf.
  std::vector<int64_t> steps() { return {0, 0, -1, 2, 1, -1, 5, 2, 3, -1}; }

  double score(int64_t b, int64_t i, int64_t j) {
    if (keep.at(0, i, j) == 0.0f)
      return -INFINITY;
    double s = 0;
    for (int64_t e = 0; e < d; ++e)
      s += double(q.at(b, i, e)) * k.at(b, j, e);
    return s * 0.25 + bias.at(b, 0, j);
  }
};

TEST_F(AttentionKernelTest, ForwardMatchesTheSoftmaxOfTheScores) {
  Tensor3 out = make(n, tq, dv, nullptr);
  Rows maxima = makeRows(n, tq), sums = makeRows(n, tq);
  Steps s(steps());
  _mlir_ciface_kiln_rt_attention_f32(
      &q.desc, &k.desc, &v.desc, &scale.desc, &bias.desc, &keep.desc,
      &fill.desc, &s.desc, &out.desc, &maxima.desc, &sums.desc);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t i = 0; i < tq; ++i) {
      std::vector<double> p(tk);
      double m = -INFINITY, l = 0;
      for (int64_t j = 0; j < tk; ++j)
        m = std::max(m, p[j] = score(b, i, j));
      for (int64_t j = 0; j < tk; ++j)
        l += p[j] = std::exp(p[j] - m);
      for (int64_t e = 0; e < dv; ++e) {
        double o = 0;
        for (int64_t j = 0; j < tk; ++j)
          o += p[j] / l * v.at(b, j, e);
        if (std::isinf(m))
          EXPECT_TRUE(std::isnan(out.at(b, i, e))) << "row " << i;
        else
          EXPECT_NEAR(out.at(b, i, e), o, 1e-5) << b << " " << i << " " << e;
      }
      if (!std::isinf(m))
        EXPECT_NEAR(maxima.storage[b * tq + i], m, 1e-5 * (1 + std::abs(m)));
    }
}

TEST_F(AttentionKernelTest, GradientsMatchTheSoftmaxBackward) {
  // Rows that see at least one key only: the NaN rows would spread.
  for (int64_t i = 0; i < tq; ++i)
    for (int64_t j = 0; j < tk; ++j)
      keep.at(0, i, j) = j <= i ? 1.0f : 0.0f;
  Tensor3 out = make(n, tq, dv, nullptr);
  Rows maxima = makeRows(n, tq), sums = makeRows(n, tq);
  Steps s(steps());
  _mlir_ciface_kiln_rt_attention_f32(
      &q.desc, &k.desc, &v.desc, &scale.desc, &bias.desc, &keep.desc,
      &fill.desc, &s.desc, &out.desc, &maxima.desc, &sums.desc);
  Tensor3 dq = make(n, tq, d, nullptr), dk = make(n, tk, d, nullptr),
          dvGrad = make(n, tk, dv, nullptr);
  _mlir_ciface_kiln_rt_attention_grad_f32(
      &q.desc, &k.desc, &v.desc, &out.desc, &maxima.desc, &sums.desc,
      &dout.desc, &scale.desc, &bias.desc, &keep.desc, &fill.desc, &s.desc,
      &dq.desc, &dk.desc, &dvGrad.desc);
  std::vector<double> wantDq(n * tq * d, 0), wantDk(n * tk * d, 0),
      wantDv(n * tk * dv, 0);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t i = 0; i < tq; ++i) {
      std::vector<double> p(tk), dp(tk);
      double m = -INFINITY, l = 0, rowDot = 0;
      for (int64_t j = 0; j < tk; ++j)
        m = std::max(m, p[j] = score(b, i, j));
      for (int64_t j = 0; j < tk; ++j)
        l += p[j] = std::exp(p[j] - m);
      for (int64_t j = 0; j < tk; ++j) {
        p[j] /= l;
        for (int64_t e = 0; e < dv; ++e) {
          dp[j] += double(dout.at(b, i, e)) * v.at(b, j, e);
          wantDv[(b * tk + j) * dv + e] += p[j] * dout.at(b, i, e);
        }
        rowDot += p[j] * dp[j];
      }
      for (int64_t j = 0; j < tk; ++j) {
        // The derivative of the rewrites: the scale where kept, else 0.
        double ds = p[j] * (dp[j] - rowDot) * (keep.at(0, i, j) ? 0.25 : 0.0);
        for (int64_t e = 0; e < d; ++e) {
          wantDq[(b * tq + i) * d + e] += ds * k.at(b, j, e);
          wantDk[(b * tk + j) * d + e] += ds * q.at(b, i, e);
        }
      }
    }
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t i = 0; i < tq; ++i)
      for (int64_t e = 0; e < d; ++e)
        EXPECT_NEAR(dq.at(b, i, e), wantDq[(b * tq + i) * d + e], 1e-4);
    for (int64_t j = 0; j < tk; ++j) {
      for (int64_t e = 0; e < d; ++e)
        EXPECT_NEAR(dk.at(b, j, e), wantDk[(b * tk + j) * d + e], 1e-4);
      for (int64_t e = 0; e < dv; ++e)
        EXPECT_NEAR(dvGrad.at(b, j, e), wantDv[(b * tk + j) * dv + e], 1e-4);
    }
  }
}

TEST_F(AttentionKernelTest, MalformedStepsGiveNaNAndReadNothingOutside) {
  Tensor3 out = make(n, tq, dv, nullptr);
  Rows maxima = makeRows(n, tq), sums = makeRows(n, tq);
  // An operand index past the four slots, a kind that does not exist, and
  // steps without their end marker.
  for (std::vector<int64_t> bad :
       {std::vector<int64_t>{2, 4, -1, -1}, std::vector<int64_t>{9, 0, 0, -1},
        std::vector<int64_t>{0, 0, -1}}) {
    Steps s(bad);
    _mlir_ciface_kiln_rt_attention_f32(
        &q.desc, &k.desc, &v.desc, &scale.desc, &bias.desc, &keep.desc,
        &fill.desc, &s.desc, &out.desc, &maxima.desc, &sums.desc);
    for (size_t i = out.desc.offset; i < out.storage.size(); ++i)
      ASSERT_TRUE(std::isnan(out.storage[i])) << "element " << i;
    Tensor3 dq = make(n, tq, d, nullptr), dk = make(n, tk, d, nullptr),
            dvGrad = make(n, tk, dv, nullptr);
    _mlir_ciface_kiln_rt_attention_grad_f32(
        &q.desc, &k.desc, &v.desc, &out.desc, &maxima.desc, &sums.desc,
        &dout.desc, &scale.desc, &bias.desc, &keep.desc, &fill.desc, &s.desc,
        &dq.desc, &dk.desc, &dvGrad.desc);
    EXPECT_TRUE(std::isnan(dq.at(0, 0, 0)));
    EXPECT_TRUE(std::isnan(dk.at(n - 1, tk - 1, d - 1)));
    EXPECT_TRUE(std::isnan(dvGrad.at(1, 5, 3)));
  }
}

} // namespace
