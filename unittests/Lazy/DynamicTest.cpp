//===- DynamicTest.cpp - automatic dynamic dims -------------------------===//
//
// A program that differs from a cached one only in sizes (a new batch
// size) compiles once more, shape-generic, and every later size runs on
// that program with no compile: a loop over 20 batch sizes compiles 2
// programs. The results equal a step computed by hand in double.
//
//===----------------------------------------------------------------------===//

#include "Compiler/Frontend/TraceCache.h"
#include "LazyTestHelpers.h"
#include "kiln/Lazy/Jit.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstdlib>

using namespace kiln;

namespace {

const std::vector<int64_t> batchSizes = {8,  16, 5, 1,  32, 3,  12, 7,  2,  9,
                                         24, 4,  6, 10, 11, 13, 64, 15, 17, 20};

/// Deterministic values in [-1, 1).
std::vector<float> ramp(int64_t n, int seed) {
  std::vector<float> v;
  for (int64_t i = 0; i < n; ++i)
    v.push_back(static_cast<float>(((i * 37 + seed * 11) % 200) - 100) /
                100.0f);
  return v;
}

/// One SGD step of a linear layer with a bias on a batch of `batch` rows:
/// loss = sum(tanh(x w + b)^2); returns the updated w and b, the loss and
/// the layer's rows (a result with the batch dim).
std::vector<std::vector<float>>
step(std::vector<float> &w, std::vector<float> &b, int64_t batch, int seed) {
  Tensor x = input({batch, 6}, ramp(batch * 6, seed));
  Tensor tw = input({6, 4}, w), tb = input({4}, b);
  Tensor y = tanh(matmul(x, tw) + broadcastTo(tb, {batch, 4}));
  Tensor loss = sum(y * y, {0, 1});
  std::vector<Tensor> g = grad({loss}, {tw, tb});
  Tensor nw = tw - 0.05 * g[0], nb = tb - 0.05 * g[1];
  EXPECT_FALSE(static_cast<bool>(sync({nw, nb, loss, y})));
  w = values(nw);
  b = values(nb);
  return {w, b, values(loss), values(y)};
}

/// The same step in double, by hand: dz = 2 y (1 - y^2), dw = x^T dz,
/// db = the row sums of dz.
std::vector<std::vector<double>> stepByHand(std::vector<double> &w,
                                            std::vector<double> &b,
                                            int64_t batch, int seed) {
  std::vector<float> x = ramp(batch * 6, seed);
  std::vector<double> y(batch * 4), dw(24, 0), db(4, 0);
  double loss = 0;
  for (int64_t r = 0; r < batch; ++r)
    for (int64_t j = 0; j < 4; ++j) {
      double z = b[j];
      for (int64_t k = 0; k < 6; ++k)
        z += x[r * 6 + k] * w[k * 4 + j];
      double t = std::tanh(z);
      y[r * 4 + j] = t;
      loss += t * t;
      double dz = 2 * t * (1 - t * t);
      db[j] += dz;
      for (int64_t k = 0; k < 6; ++k)
        dw[k * 4 + j] += x[r * 6 + k] * dz;
    }
  for (size_t i = 0; i < w.size(); ++i)
    w[i] -= 0.05 * dw[i];
  for (size_t j = 0; j < b.size(); ++j)
    b[j] -= 0.05 * db[j];
  return {w, b, {loss}, y};
}

void expectClose(const std::vector<float> &got, const std::vector<double> &want,
                 const std::string &what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t e = 0; e < want.size(); ++e)
    EXPECT_NEAR(got[e], want[e], 1e-4 * std::max(1.0, std::abs(want[e])))
        << what << " element " << e;
}

TEST(DynamicTest, TwentyBatchSizesCompileTwoPrograms) {
  TraceCacheStats before = TraceCache::global().getStats();
  std::vector<float> w = ramp(24, 1), b = ramp(4, 2);
  std::vector<double> hw(w.begin(), w.end()), hb(b.begin(), b.end());
  for (auto [i, batch] : llvm::enumerate(batchSizes)) {
    std::vector<std::vector<float>> got =
        step(w, b, batch, static_cast<int>(i));
    std::vector<std::vector<double>> want =
        stepByHand(hw, hb, batch, static_cast<int>(i));
    std::string what = "batch " + std::to_string(batch);
    expectClose(got[0], want[0], what + " w");
    expectClose(got[1], want[1], what + " b");
    expectClose(got[2], want[2], what + " loss");
    expectClose(got[3], want[3], what + " rows");
  }
  TraceCacheStats after = TraceCache::global().getStats();
  EXPECT_EQ(after.compiles - before.compiles, 2);
  EXPECT_EQ(after.genericCompiles - before.genericCompiles, 1);
  EXPECT_EQ(after.genericHits - before.genericHits,
            static_cast<int64_t>(batchSizes.size()) - 2);
}

// KILN_DYNAMIC=0 compiles each size for itself.
TEST(DynamicTest, TurnedOffCompilesEachSize) {
  setenv("KILN_DYNAMIC", "0", 1);
  TraceCacheStats before = TraceCache::global().getStats();
  for (int64_t rows : {2, 3, 4}) {
    Tensor x = input({rows, 3}, ramp(rows * 3, 9));
    std::vector<float> got = values(sum(sigmoid(x), {0}));
    EXPECT_EQ(got.size(), 3u);
  }
  TraceCacheStats after = TraceCache::global().getStats();
  unsetenv("KILN_DYNAMIC");
  EXPECT_EQ(after.compiles - before.compiles, 3);
  EXPECT_EQ(after.genericCompiles, before.genericCompiles);
}

// A size the pattern does not fit (a dim that was static changes) compiles
// for itself; a program whose sizes no parameter names is not generic.
TEST(DynamicTest, WhatDoesNotFitCompilesForItself) {
  auto run = [](int64_t rows, int64_t cols) {
    Tensor x = input({rows, cols}, ramp(rows * cols, 3));
    Tensor s = sum(exp(x), {0});
    return values(s);
  };
  run(3, 5);
  TraceCacheStats a = TraceCache::global().getStats();
  run(4, 5); // generic: rows dynamic
  run(6, 5); // fits
  TraceCacheStats b = TraceCache::global().getStats();
  EXPECT_EQ(b.genericCompiles - a.genericCompiles, 1);
  EXPECT_EQ(b.genericHits - a.genericHits, 1);
  std::vector<float> got = run(6, 7); // cols changed: not the pattern
  TraceCacheStats c = TraceCache::global().getStats();
  EXPECT_EQ(c.genericHits, b.genericHits);
  EXPECT_EQ(c.compiles - b.compiles, 1);
  std::vector<float> x = ramp(42, 3);
  for (int64_t j = 0; j < 7; ++j) {
    double want = 0;
    for (int64_t i = 0; i < 6; ++i)
      want += std::exp(static_cast<double>(x[i * 7 + j]));
    EXPECT_NEAR(got[j], want, 1e-4 * want);
  }
}

} // namespace

namespace {

// A dim marked dynamic compiles shape-generic from the first size: a loop
// over batch sizes compiles 1 program, and the results are right.
TEST(DynamicTest, MarkedDimsCompileGenericFromTheFirstSize) {
  TraceCacheStats before = TraceCache::global().getStats();
  std::vector<float> w = ramp(12, 5);
  for (int64_t rows : {7, 2, 19, 1}) {
    std::vector<float> xs = ramp(rows * 3, 6);
    Tensor x = input({rows, 3}, xs);
    ASSERT_FALSE(static_cast<bool>(markDynamic(x, 0)));
    // Per row: sigmoid(x w) summed over the columns; a result of `rows`.
    std::vector<float> got =
        values(sum(sigmoid(matmul(x, input({3, 4}, w)) * 2.0), {1}));
    ASSERT_EQ(got.size(), static_cast<size_t>(rows));
    for (int64_t r = 0; r < rows; ++r) {
      double want = 0;
      for (int64_t j = 0; j < 4; ++j) {
        double z = 0;
        for (int64_t k = 0; k < 3; ++k)
          z += xs[r * 3 + k] * w[k * 4 + j];
        want += 1 / (1 + std::exp(-2 * z));
      }
      EXPECT_NEAR(got[r], want, 1e-5 * std::max(1.0, want));
    }
  }
  TraceCacheStats after = TraceCache::global().getStats();
  EXPECT_EQ(after.compiles - before.compiles, 1);
  EXPECT_EQ(after.genericCompiles - before.genericCompiles, 1);
  EXPECT_EQ(after.genericHits - before.genericHits, 3);
}

/// The step of `step` above as a function of its inputs (w, b, x), for
/// kiln::Jit: (w', b', loss, rows).
std::vector<Tensor> linearStep(llvm::ArrayRef<Tensor> in) {
  const Tensor &w = in[0], &b = in[1], &x = in[2];
  int64_t batch = x.getShape()[0];
  Tensor y = tanh(matmul(x, w) + broadcastTo(b, {batch, 4}));
  Tensor loss = sum(y * y, {0, 1});
  std::vector<Tensor> g = grad({loss}, {w, b});
  return {w - 0.05 * g[0], b - 0.05 * g[1], loss, y};
}

// Under kiln::Jit, once two recorded calls of different batch sizes
// captured the same (shape-generic) step, a new batch size replays it: no
// op recorded, no lookup, no compile; the results are the step by hand's.
TEST(DynamicTest, JitReplaysNewBatchSizesWithoutRecording) {
  TraceCacheStats before = TraceCache::global().getStats();
  std::vector<float> w0 = ramp(24, 3), b0 = ramp(4, 4);
  std::vector<double> hw(w0.begin(), w0.end()), hb(b0.begin(), b0.end());
  Tensor w = input({6, 4}, w0), b = input({4}, b0);
  Jit jit(linearStep);
  for (auto [i, batch] : llvm::enumerate(batchSizes)) {
    Tensor x = input({batch, 6}, ramp(batch * 6, static_cast<int>(i)));
    Metrics start = metrics();
    llvm::Expected<std::vector<Tensor>> out = jit({w, b, x});
    ASSERT_TRUE(static_cast<bool>(out)) << llvm::toString(out.takeError());
    Metrics end = metrics();
    if (i >= 3) {
      EXPECT_EQ(end.tracedOps, start.tracedOps) << "batch " << batch;
      EXPECT_EQ(end.cacheHits + end.cacheMisses,
                start.cacheHits + start.cacheMisses);
    }
    std::vector<std::vector<double>> want =
        stepByHand(hw, hb, batch, static_cast<int>(i));
    std::string what = "batch " + std::to_string(batch);
    expectClose(values((*out)[0]), want[0], what + " w");
    expectClose(values((*out)[1]), want[1], what + " b");
    expectClose(values((*out)[2]), want[2], what + " loss");
    expectClose(values((*out)[3]), want[3], what + " rows");
    w = (*out)[0];
    b = (*out)[1];
  }
  // Recorded at the first three sizes at most (the second compiles the
  // generic program, unless an earlier test did; the third captures the
  // same step at another size); every later size replays.
  EXPECT_LE(jit.getNumRecordedCalls(), 3);
  EXPECT_EQ(jit.getNumGenericReplays(),
            static_cast<int64_t>(batchSizes.size()) -
                jit.getNumRecordedCalls());
  TraceCacheStats after = TraceCache::global().getStats();
  EXPECT_LE(after.compiles - before.compiles, 2);
}

// A step with something baked that depends on the batch (a mean's 1/n)
// never captures the same step at two sizes: every new size records, and
// every result is right.
TEST(DynamicTest, JitRecordsNewSizesWhenTheStepDependsOnThem) {
  Jit jit([](llvm::ArrayRef<Tensor> in) -> std::vector<Tensor> {
    return {mean(in[0] * in[0], {0})};
  });
  for (int64_t rows : {3, 5, 7, 9}) {
    std::vector<float> xs = ramp(rows * 2, 8);
    llvm::Expected<std::vector<Tensor>> out = jit({input({rows, 2}, xs)});
    ASSERT_TRUE(static_cast<bool>(out)) << llvm::toString(out.takeError());
    std::vector<float> got = values((*out)[0]);
    for (int64_t j = 0; j < 2; ++j) {
      double want = 0;
      for (int64_t r = 0; r < rows; ++r)
        want += xs[r * 2 + j] * xs[r * 2 + j];
      EXPECT_NEAR(got[j], want / rows, 1e-5) << rows;
    }
  }
  EXPECT_EQ(jit.getNumRecordedCalls(), 4);
  EXPECT_EQ(jit.getNumGenericReplays(), 0);
}

TEST(DynamicTest, MarkingChecksTheDim) {
  Tensor x = input({2, 3}, ramp(6, 1));
  llvm::Error error = markDynamic(x, 2);
  ASSERT_TRUE(static_cast<bool>(error));
  EXPECT_EQ(llvm::toString(std::move(error)),
            "markDynamic: dim 2 is out of range for a tensor of rank 2");
}

} // namespace
