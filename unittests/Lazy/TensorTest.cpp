//===- TensorTest.cpp - lazy tensors: ops, errors, materialization -----===//
//
// Records programs with kiln::Tensor, materializes them and checks the
// values against ones computed here; checks that errors name the op and
// the shapes; that a tensor is computed once; and that the trace cache
// hits on new data and misses on a new shape.
//
//===----------------------------------------------------------------------===//

#include "kiln/Compiler/TraceCache.h"
#include "kiln/Lazy/Tensor.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace kiln;

namespace {

Tensor input(std::vector<int64_t> shape, std::vector<float> values) {
  HostTensor data(DType::F32, shape);
  for (size_t i = 0; i < values.size(); ++i)
    data.setFromDouble(static_cast<int64_t>(i), values[i]);
  return Tensor::fromHost(std::move(data));
}

std::vector<float> values(const Tensor &t) {
  llvm::Expected<HostTensor> host = t.toHost();
  if (!host) {
    ADD_FAILURE() << llvm::toString(host.takeError());
    return {};
  }
  std::vector<float> out;
  for (int64_t i = 0; i < host->getNumElements(); ++i)
    out.push_back(static_cast<float>(host->getAsDouble(i)));
  return out;
}

TraceCacheStats stats() { return TraceCache::global().getStats(); }

// tanh(x W^T + b): the bias broadcasts over the rows.
TEST(TensorTest, LinearLayer) {
  std::vector<float> xs = {0.5f, -1.0f, 2.0f, 0.25f};
  std::vector<float> ws = {0.1f, 0.2f, -0.3f, 0.4f, 0.5f, 0.6f};
  std::vector<float> bs = {0.0f, 0.1f, -0.2f};
  Tensor y = tanh(matmul(input({2, 2}, xs), input({3, 2}, ws), false, true) +
                  input({3}, bs));
  ASSERT_TRUE(y.ok()) << y.getError();
  EXPECT_EQ(y.getShape(), (llvm::ArrayRef<int64_t>{2, 3}));
  std::vector<float> got = values(y);
  ASSERT_EQ(got.size(), 6u);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j) {
      double acc = bs[j] + xs[i * 2] * ws[j * 2] + xs[i * 2 + 1] * ws[j * 2 + 1];
      EXPECT_NEAR(got[i * 3 + j], std::tanh(acc), 1e-6);
    }
}

// Scalars on either side, column and row broadcasts, comparisons and where,
// chunk and cat, reductions.
TEST(TensorTest, ScalarsShapesAndReductions) {
  Tensor x = input({2, 3}, {1, -2, 3, -4, 5, -6});
  EXPECT_EQ(values(1.0 - x * 2.0), (std::vector<float>{-1, 5, -5, 9, -9, 13}));
  EXPECT_EQ(values(x + input({2, 1}, {10, 20})),
            (std::vector<float>{11, 8, 13, 16, 25, 14}));
  EXPECT_EQ(values(where(gt(x, Tensor::zeros({})), x, Tensor::zeros({}))),
            (std::vector<float>{1, 0, 3, 0, 5, 0}));
  std::vector<Tensor> parts = chunk(x, 3, 1);
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(values(cat({parts[2], parts[0]}, 1)),
            (std::vector<float>{3, 1, -6, -4}));
  EXPECT_EQ(values(sum(x, {0})), (std::vector<float>{-3, 3, -3}));
  EXPECT_EQ(values(amax(x, {1})), (std::vector<float>{3, 5}));
  EXPECT_EQ(values(transpose(x, {1, 0})),
            (std::vector<float>{1, -4, -2, 5, 3, -6}));
  EXPECT_EQ(values(reshape(x, {3, 2})),
            (std::vector<float>{1, -2, 3, -4, 5, -6}));
}

// A failed op names itself and the shapes, at once; later ops keep that
// first error, and materializing returns it.
TEST(TensorTest, ErrorsAtTheFailingOp) {
  Tensor a = input({4, 8}, std::vector<float>(32, 1.0f));
  Tensor b = input({4, 9}, std::vector<float>(36, 1.0f));
  Tensor bad = a + b;
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(bad.getError(),
            "kiln.add: shapes [4, 8] and [4, 9] do not broadcast");
  Tensor later = tanh(bad * 2.0);
  EXPECT_EQ(later.getError(), bad.getError());
  llvm::Expected<HostTensor> host = later.toHost();
  ASSERT_FALSE(static_cast<bool>(host));
  EXPECT_EQ(llvm::toString(host.takeError()), bad.getError());
  EXPECT_EQ(matmul(a, a).getError(),
            "kiln.matmul: tensor<4x8xf32> x tensor<4x8xf32>: contracted "
            "sizes 8 and 4 differ");
  EXPECT_EQ(Tensor().getError(), "an empty tensor");
}

// A materialized tensor is never computed again: asking twice runs nothing,
// and a program that reads it takes it as data.
TEST(TensorTest, MaterializesOnce) {
  Tensor x = input({3}, {1, 2, 3});
  Tensor t = exp(x) * 3.0;
  TraceCacheStats before = stats();
  EXPECT_EQ(values(t).size(), 3u);
  TraceCacheStats once = stats();
  EXPECT_EQ(once.hits + once.misses, before.hits + before.misses + 1);
  EXPECT_EQ(values(t).size(), 3u);
  TraceCacheStats twice = stats();
  EXPECT_EQ(twice.hits + twice.misses, once.hits + once.misses);
  // u's program is "t + 1" with t a parameter: exp is not in it.
  Tensor u = t + 1.0;
  TraceProgram program = TraceProgram::extract({u.getNode()});
  for (const TraceProgram::Entry &entry : program.entries)
    EXPECT_NE(entry.node->getOp(), TraceOp::Exp);
  std::vector<float> got = values(u);
  EXPECT_NEAR(got[2], 3 * std::exp(3.0) + 1, 1e-3);
}

// New data is the same program (a hit); a new shape is another (a miss);
// sync of several tensors is one program.
TEST(TensorTest, TraceCacheHitsAndMisses) {
  auto step = [](std::vector<float> xs, size_t n) {
    Tensor x = input({static_cast<int64_t>(n)}, xs);
    return sigmoid(x * 0.5) - 0.25;
  };
  values(step({1, 2}, 2));
  TraceCacheStats first = stats();
  std::vector<float> again = values(step({3, 4}, 2));
  TraceCacheStats second = stats();
  EXPECT_EQ(second.hits, first.hits + 1);
  EXPECT_EQ(second.compiles, first.compiles);
  EXPECT_NEAR(again[1], 1 / (1 + std::exp(-2.0)) - 0.25, 1e-6);
  values(step({1, 2, 3}, 3));
  TraceCacheStats third = stats();
  EXPECT_EQ(third.misses, second.misses + 1);

  Tensor x = input({2}, {0.5f, 1.5f});
  Tensor a = exp(x), b = log(x);
  TraceCacheStats beforeSync = stats();
  ASSERT_FALSE(static_cast<bool>(sync({a, b})));
  TraceCacheStats afterSync = stats();
  EXPECT_EQ(afterSync.hits + afterSync.misses,
            beforeSync.hits + beforeSync.misses + 1);
  EXPECT_NEAR(values(b)[1], std::log(1.5), 1e-6);
}

} // namespace
