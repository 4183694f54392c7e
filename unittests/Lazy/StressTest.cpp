//===- StressTest.cpp - lazy tensors under concurrent use ---------------===//
//
// Several threads train on shared weights at once: each records a forward,
// gradients and an update on the same weight tensors, materializes its own
// results, and also materializes tensors another thread recorded (so two
// threads may compute, store and release one node at once). Every value
// must be right and the program compiled once. Built twice: into
// LazyTests, and with -fsanitize=thread into LazyTsanTests, where any data
// race fails the run.
//
//===----------------------------------------------------------------------===//

#include "Compiler/Frontend/TraceCache.h"
#include "LazyTestHelpers.h"

#include <atomic>
#include <cmath>
#include <mutex>
#include <thread>

using namespace kiln;

namespace {

TEST(StressTest, ThreadsTrainOnSharedWeights) {
  constexpr int numThreads = 4, steps = 40;
  Tensor w = input({4}, {0.5f, -0.25f, 1.0f, 0.75f});
  // A tensor all threads materialize at once, and one per thread that its
  // neighbour materializes as well.
  Tensor shared = exp(w) * 2.0;
  std::vector<Tensor> published(numThreads);
  std::mutex publishMutex;
  std::atomic<int> wrong{0}, errors{0};
  TraceCacheStats before = TraceCache::global().getStats();
  size_t cachedBefore = TraceCache::global().size();

  std::vector<std::thread> threads;
  for (int t = 0; t < numThreads; ++t)
    threads.emplace_back([&, t] {
      for (int s = 0; s < steps; ++s) {
        float v = 0.01f * static_cast<float>(t * steps + s);
        Tensor x = input({4}, {v, 1.0f, -v, 2.0f});
        // loss = sum(tanh(w * x)); dloss/dw = x (1 - tanh^2(w x)).
        Tensor loss = sum(tanh(w * x), {0});
        Tensor dw = grad({loss}, {w})[0];
        Tensor next = w - 0.1 * dw;
        {
          std::lock_guard<std::mutex> lock(publishMutex);
          published[t] = next;
        }
        Tensor other;
        {
          std::lock_guard<std::mutex> lock(publishMutex);
          other = published[(t + 1) % numThreads];
        }
        std::vector<Tensor> wanted = {next, loss, shared};
        if (other.ok())
          wanted.push_back(other);
        if (llvm::Error e = sync(wanted)) {
          llvm::consumeError(std::move(e));
          ++errors;
          continue;
        }
        llvm::Expected<HostTensor> got = next.toHost();
        llvm::Expected<HostTensor> doubled = shared.toHost();
        if (!got || !doubled) {
          if (!got)
            llvm::consumeError(got.takeError());
          if (!doubled)
            llvm::consumeError(doubled.takeError());
          ++errors;
          continue;
        }
        std::vector<float> ws = {0.5f, -0.25f, 1.0f, 0.75f},
                           xs = {v, 1.0f, -v, 2.0f};
        for (int i = 0; i < 4; ++i) {
          double th = std::tanh(double(ws[i]) * xs[i]);
          double want = ws[i] - 0.1 * xs[i] * (1 - th * th);
          if (std::abs(got->getAsDouble(i) - want) > 1e-5)
            ++wrong;
          if (std::abs(doubled->getAsDouble(i) - 2 * std::exp(double(ws[i]))) >
              1e-5)
            ++wrong;
        }
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(errors.load(), 0);
  EXPECT_EQ(wrong.load(), 0);
  TraceCacheStats after = TraceCache::global().getStats();
  // The training step with and without a neighbour's tensor and `shared`
  // (until computed): a few programs, each compiled once however many
  // threads missed it at once.
  EXPECT_LE(after.compiles - before.compiles, 8);
  EXPECT_EQ(after.compiles - before.compiles,
            static_cast<int64_t>(TraceCache::global().size() - cachedBefore));
  EXPECT_EQ(after.evictions, before.evictions);
}

// Threads record gradients through one shared forward, then compute a
// value inside it (h) at once while the others' gradients wait: each
// gradient is still the one of its forward as recorded (h, computed after
// it was recorded, is not data to it).
TEST(StressTest, ValuesArriveInSharedForwards) {
  constexpr int numThreads = 4, rounds = 10;
  std::atomic<int> wrong{0}, errors{0};
  for (int round = 0; round < rounds; ++round) {
    std::vector<float> ws = {0.5f, -0.25f, 1.0f, 0.75f},
                       xs = {0.1f * round, 1.0f, -0.5f, 2.0f};
    Tensor w = input({4}, ws), x = input({4}, xs);
    Tensor h = tanh(w * x);
    std::atomic<int> recorded{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < numThreads; ++t)
      threads.emplace_back([&, t] {
        // loss = sum(h * c): dloss/dw = c x (1 - h^2).
        double c = 1.0 + t;
        Tensor dw = grad({sum(h * c, {0})}, {w})[0];
        ++recorded;
        while (recorded.load() < numThreads)
          std::this_thread::yield();
        if (llvm::Error e = sync({h})) {
          llvm::consumeError(std::move(e));
          ++errors;
          return;
        }
        llvm::Expected<HostTensor> got = dw.toHost();
        if (!got) {
          llvm::consumeError(got.takeError());
          ++errors;
          return;
        }
        for (int i = 0; i < 4; ++i) {
          double th = std::tanh(double(ws[i]) * xs[i]);
          if (std::abs(got->getAsDouble(i) - c * xs[i] * (1 - th * th)) > 1e-5)
            ++wrong;
        }
      });
    for (std::thread &thread : threads)
      thread.join();
  }
  EXPECT_EQ(errors.load(), 0);
  EXPECT_EQ(wrong.load(), 0);
}

} // namespace
