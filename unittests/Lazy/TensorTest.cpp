//===- TensorTest.cpp - lazy tensors: ops, errors, materialization -----===//
//
// Records programs with kiln::Tensor, materializes them and checks the
// values against ones computed here; checks that errors name the op and
// the shapes; that a tensor is computed once; and that the trace cache
// hits on new data and misses on a new shape.
//
//===----------------------------------------------------------------------===//

#include "Compiler/Frontend/TraceCache.h"
#include "LazyTestHelpers.h"
#include "kiln/Lazy/Autocast.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstdlib>
#include <thread>

using namespace kiln;

namespace {

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
      double acc =
          bs[j] + xs[i * 2] * ws[j * 2] + xs[i * 2 + 1] * ws[j * 2 + 1];
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

// The other elementwise ops, against <cmath>.
TEST(TensorTest, MoreElementwise) {
  std::vector<float> xs = {0.25f, 1.0f, 2.5f};
  Tensor x = input({3}, xs);
  std::vector<float> got =
      values(cat({sin(x), cos(x), rsqrt(x), reciprocal(x),
                  pow(x, input({3}, {2, 0.5f, 3})), sqrt(x), log(x), abs(-x)},
                 0));
  ASSERT_EQ(got.size(), 24u);
  std::vector<float> exponents = {2, 0.5f, 3};
  for (int i = 0; i < 3; ++i) {
    double v = xs[i];
    EXPECT_NEAR(got[i], std::sin(v), 1e-6);
    EXPECT_NEAR(got[3 + i], std::cos(v), 1e-6);
    EXPECT_NEAR(got[6 + i], 1 / std::sqrt(v), 1e-6);
    EXPECT_NEAR(got[9 + i], 1 / v, 1e-6);
    EXPECT_NEAR(got[12 + i], std::pow(v, exponents[i]), 1e-5);
    EXPECT_NEAR(got[15 + i], std::sqrt(v), 1e-6);
    EXPECT_NEAR(got[18 + i], std::log(v), 1e-6);
    EXPECT_NEAR(got[21 + i], v, 0);
  }
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

// wrap borrows the caller's buffer: no copy, no allocation counted, the
// buffer read when the program runs; bad buffers fail at wrap.
TEST(TensorTest, WrapBorrows) {
  alignas(16) float buffer[6] = {1, 2, 3, 4, 5, 6};
  uint64_t before = metrics().liveBytes;
  Tensor x = Tensor::wrap(buffer, DType::F32, {2, 3});
  ASSERT_TRUE(x.ok()) << x.getError();
  EXPECT_EQ(metrics().liveBytes, before);
  EXPECT_EQ(x.getNode()->getData()->getData(), static_cast<void *>(buffer));
  EXPECT_TRUE(x.getNode()->getData()->isBorrowed());
  // Read when the program runs, not when recorded.
  Tensor y = x * 2.0;
  buffer[5] = 10;
  EXPECT_EQ(values(y), (std::vector<float>{2, 4, 6, 8, 10, 20}));
  // A copy out owns its storage.
  llvm::Expected<HostTensor> copy = x.toHost();
  ASSERT_TRUE(static_cast<bool>(copy));
  EXPECT_FALSE(copy->isBorrowed());
  EXPECT_NE(copy->getData(), static_cast<void *>(buffer));

  EXPECT_EQ(Tensor::wrap(nullptr, DType::F32, {2}).getError(),
            "cannot wrap tensor<2xf32>: the buffer is null");
  EXPECT_EQ(Tensor::wrap(reinterpret_cast<char *>(buffer) + 2, DType::F32, {2})
                .getError(),
            "cannot wrap tensor<2xf32>: the buffer is not aligned to its "
            "element size");
  EXPECT_EQ(Tensor::wrap(buffer, DType::F32, {-1}).getError(),
            "cannot wrap tensor<-1xf32>: negative dim");
  EXPECT_TRUE(Tensor::wrap(nullptr, DType::F32, {0}).ok());
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

namespace {

// metrics() counts what happened: recorded ops, runs, a compile on a miss
// and a hit on the same program with new data.
TEST(TensorTest, Metrics) {
  Metrics before = metrics();
  Tensor y = relu(input({5}, {1, -1, 2, -2, 3}) * 7.0);
  Metrics recorded = metrics();
  EXPECT_GE(recorded.tracedOps, before.tracedOps + 4);
  values(y);
  Metrics first = metrics();
  EXPECT_EQ(first.runs, before.runs + 1);
  EXPECT_EQ(first.cacheMisses + first.cacheHits,
            before.cacheMisses + before.cacheHits + 1);
  values(relu(input({5}, {5, 4, 3, 2, 1}) * 7.0));
  Metrics second = metrics();
  EXPECT_EQ(second.cacheHits, first.cacheHits + 1);
  EXPECT_EQ(second.compiles, first.compiles);
  EXPECT_GT(second.liveBytes, 0u);
}

// KILN_DUMP_TRACES=DIR writes each compiled program as a kiln module.
TEST(TensorTest, DumpTraces) {
  llvm::SmallString<128> dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("kiln-traces", dir));
  setenv("KILN_DUMP_TRACES", dir.c_str(), 1);
  // A shape no other test uses: a miss.
  values(tanh(input({7}, {1, 2, 3, 4, 5, 6, 7})));
  unsetenv("KILN_DUMP_TRACES");
  std::error_code ec;
  int files = 0;
  std::string text;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec)) {
    ++files;
    auto buffer = llvm::MemoryBuffer::getFile(it->path());
    ASSERT_TRUE(static_cast<bool>(buffer));
    text = (*buffer)->getBuffer().str();
  }
  EXPECT_EQ(files, 1);
  EXPECT_NE(text.find("func.func @main(%arg0: tensor<7xf32>) -> tensor<7xf32>"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("kiln.tanh"), std::string::npos) << text;
  llvm::sys::fs::remove_directories(dir);
}

// Tensors nobody holds are freed: 10,000 training steps (forward, grad,
// SGD update; each step's weights feed the next) hold no more memory at
// the end than after the first steps.
TEST(TensorTest, MemoryStaysFlat) {
  Tensor w = input({8, 8}, std::vector<float>(64, 0.01f));
  Tensor x = input({4, 8}, std::vector<float>(32, 0.5f));
  auto step = [&] {
    Tensor loss = sum(tanh(matmul(x, w) + 0.1), {0, 1});
    Tensor next = w - 0.01 * grad({loss}, {w})[0];
    ASSERT_FALSE(static_cast<bool>(sync({next, loss})));
    w = next;
  };
  int64_t runs = metrics().runs;
  for (int i = 0; i < 20; ++i)
    step();
  uint64_t early = metrics().liveBytes;
  for (int i = 0; i < 10000; ++i)
    step();
  EXPECT_EQ(metrics().liveBytes, early);
  EXPECT_EQ(metrics().runs - runs, 10020);
  // The steps trained: every weight moved down the gradient.
  for (float v : values(w))
    EXPECT_LT(v, 0.01f);
}

} // namespace

namespace {

// Several threads record and materialize at once, on shared inputs and one
// program structure: every result is right, and the program is compiled
// once.
TEST(TensorTest, ThreadsMaterializeAtOnce) {
  Tensor shared = input({16}, std::vector<float>(16, 0.5f));
  constexpr int numThreads = 4, steps = 25;
  std::vector<int> wrong(numThreads, 0);
  TraceCacheStats before = stats();
  std::vector<std::thread> threads;
  for (int t = 0; t < numThreads; ++t)
    threads.emplace_back([&, t] {
      for (int s = 0; s < steps; ++s) {
        float v = static_cast<float>(t * steps + s);
        Tensor y = shared * input({16}, std::vector<float>(16, v)) + 1.0;
        llvm::Expected<HostTensor> host = y.toHost();
        if (!host) {
          llvm::consumeError(host.takeError());
          ++wrong[t];
          continue;
        }
        for (int64_t i = 0; i < 16; ++i)
          if (host->getAsDouble(i) != 0.5 * v + 1.0)
            ++wrong[t];
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  for (int t = 0; t < numThreads; ++t)
    EXPECT_EQ(wrong[t], 0) << "thread " << t;
  TraceCacheStats after = stats();
  EXPECT_LE(after.compiles, before.compiles + 1);
  EXPECT_EQ(after.hits + after.misses,
            before.hits + before.misses + numThreads * steps);
}

} // namespace

namespace {

// KILN_EXPLAIN_MISS=1: a miss names where the program first differs from
// the closest cached one.
TEST(TensorTest, ExplainMiss) {
  TraceCache cache;
  auto program = [](int64_t n) {
    NodeRef x = TraceNode::parameter(DType::F32, {n});
    NodeRef e = *TraceNode::elementwise(TraceOp::Exp, {x});
    NodeRef t = *TraceNode::elementwise(TraceOp::Tanh, {e});
    return TraceProgram::extract({t});
  };
  ASSERT_TRUE(static_cast<bool>(cache.get(program(4))));
  NodeRef y = TraceNode::parameter(DType::F32, {4});
  NodeRef e = *TraceNode::elementwise(TraceOp::Exp, {y});
  NodeRef s = *TraceNode::elementwise(TraceOp::Sigmoid, {e});
  setenv("KILN_EXPLAIN_MISS", "1", 1);
  testing::internal::CaptureStderr();
  ASSERT_TRUE(static_cast<bool>(cache.get(TraceProgram::extract({s}))));
  std::string explained = testing::internal::GetCapturedStderr();
  unsetenv("KILN_EXPLAIN_MISS");
  EXPECT_EQ(explained,
            "kiln: trace cache miss (3 ops): the closest cached program first "
            "differs at %2: kiln.sigmoid(%1) : tensor<4xf32>, where it has "
            "kiln.tanh(%1) : tensor<4xf32>\n");
  EXPECT_EQ(cache.getStats().misses, 2);
}

} // namespace

namespace {

/// An i64 tensor of `values`.
Tensor ids(std::vector<int64_t> shape, std::vector<int64_t> values) {
  HostTensor data(DType::I64, shape);
  for (size_t i = 0; i < values.size(); ++i)
    data.setFromInt64(static_cast<int64_t>(i), values[i]);
  return Tensor::fromHost(std::move(data));
}

// An embedding lookup and its gradient (issue 38): take, and the
// scatter_add that kiln::grad derives for it; repeated ids accumulate.
TEST(TensorTest, EmbeddingLookupAndGradient) {
  Tensor table = input({4, 2}, {0, 1, 10, 11, 20, 21, 30, 31});
  Tensor tokens = ids({3}, {2, 0, 2});
  Tensor rows = take(table, tokens, 0);
  Tensor loss = sum(rows * input({3, 2}, {1, 2, 3, 4, 5, 6}), {0, 1});
  // (Read after grad is recorded: a value read is a leaf of later work.)
  std::vector<Tensor> g = grad({loss}, {table});
  ASSERT_EQ(g.size(), 1u);
  EXPECT_EQ(values(g[0]), (std::vector<float>{3, 4, 0, 0, 6, 8, 0, 0}));
  EXPECT_EQ(values(rows), (std::vector<float>{20, 21, 0, 1, 20, 21}));
  // The same scatter, directly: an id out of range is dropped.
  Tensor direct = scatterAdd(Tensor::zeros({4, 2}), ids({2}, {3, 9}),
                             input({2, 2}, {1, 1, 5, 5}), 0);
  EXPECT_EQ(values(direct), (std::vector<float>{0, 0, 0, 0, 0, 0, 1, 1}));
}

// Integer tensors: wrapping arithmetic, compares, argmax and iota.
TEST(TensorTest, IntegerTensorsAndArgmax) {
  Tensor a = ids({4}, {5, -3, 9, 9});
  EXPECT_EQ(values<int64_t>(a * a - a), (std::vector<int64_t>{20, 12, 72, 72}));
  EXPECT_EQ(values<int64_t>(argmax(convert(a, DType::F32), 0)),
            (std::vector<int64_t>{2}));
  EXPECT_EQ(values<int64_t>(iota({2, 3}, 1)),
            (std::vector<int64_t>{0, 1, 2, 0, 1, 2}));
  EXPECT_EQ(values(convert(gt(a, ids({4}, {0, 0, 0, 10})), DType::F32)),
            (std::vector<float>{1, 0, 1, 0}));
}

// A new seed or offset is data: one program for every key.
TEST(TensorTest, RandomNumbersTakeTheirKeyAsData) {
  auto draw = [](int64_t seed, int64_t offset) {
    return values(rngUniform(ids({2}, {seed, offset}), {8}));
  };
  std::vector<float> first = draw(1, 0);
  int64_t misses = stats().misses;
  std::vector<float> second = draw(2, 0), third = draw(1, 2);
  EXPECT_EQ(stats().misses, misses);
  EXPECT_NE(first, second);
  // Offset 2 starts at counter 2: the elements from 8 on of offset 0.
  std::vector<float> longer = values(rngUniform(ids({2}, {1, 0}), {16}));
  EXPECT_EQ(third, std::vector<float>(longer.begin() + 8, longer.end()));
  EXPECT_EQ(first, std::vector<float>(longer.begin(), longer.begin() + 8));
  for (float v : first) {
    EXPECT_GE(v, 0.0f);
    EXPECT_LT(v, 1.0f);
  }
}

} // namespace

namespace {

// torch.autocast from C++: a guard casts products to bf16 on the current
// device (the CPU) only; the state comes back after.
TEST(TensorTest, AutocastGuard) {
  std::vector<float> xs = {0.5f, -1.0f, 2.0f, 0.25f};
  Tensor x = input({2, 2}, xs);
  {
    llvm::Expected<AutocastGuard> guard =
        AutocastGuard::enter(Device::Cpu, DType::BF16);
    ASSERT_TRUE(static_cast<bool>(guard)) << toString(guard.takeError());
    Tensor product = matmul(x, x);
    ASSERT_TRUE(product.ok()) << product.getError();
    EXPECT_EQ(product.getDType(), DType::BF16);
    // PyTorch's cpu autocast keeps softmax, exp and sums narrow.
    EXPECT_FALSE(isAutocastWideningMath());
    EXPECT_EQ(softmax(product, 1).getDType(), DType::BF16);
    EXPECT_EQ(exp(product).getDType(), DType::BF16);
    EXPECT_EQ(tanh(product).getDType(), DType::BF16);
    EXPECT_EQ(getActiveAutocastDType(), std::optional<DType>(DType::BF16));
    // Another device type's autocast does not apply here.
    llvm::Expected<AutocastGuard> off =
        AutocastGuard::enter(Device::Cpu, DType::BF16, /*enabled=*/false);
    ASSERT_TRUE(static_cast<bool>(off));
    llvm::Expected<AutocastGuard> cuda =
        AutocastGuard::enter(Device::Cuda, DType::F16);
    ASSERT_TRUE(static_cast<bool>(cuda));
    EXPECT_EQ(matmul(x, x).getDType(), DType::F32);
  }
  EXPECT_FALSE(getAutocastState(Device::Cpu).enabled);
  EXPECT_FALSE(getAutocastState(Device::Cuda).enabled);
  EXPECT_EQ(getAutocastState(Device::Cuda).dtype, DType::F16);
  EXPECT_EQ(matmul(x, x).getDType(), DType::F32);

  llvm::Expected<AutocastGuard> bad =
      AutocastGuard::enter(Device::Cpu, DType::F32);
  ASSERT_FALSE(static_cast<bool>(bad));
  EXPECT_EQ(toString(bad.takeError()),
            "autocast: the dtype must be bfloat16 or float16, not f32");
  llvm::Expected<AutocastGuard> autoDevice =
      AutocastGuard::enter(Device::Auto, DType::BF16);
  ASSERT_FALSE(static_cast<bool>(autoDevice));
  EXPECT_EQ(toString(autoDevice.takeError()),
            "autocast: the device type must be 'cpu' or 'cuda', not 'auto'");
}

} // namespace
