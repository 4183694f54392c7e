//===- LazyGraphTest.cpp - lazy steps replayed as CUDA graphs -------------===//
//
// On the stand-in driver: a lazy training step, after the steps that set
// it up, is one graph launch (no direct kernel launch, no capture, no
// update) that uploads only its batch; a kiln::Jit replay is one graph
// launch too; and graph replays compute what direct runs compute.
//
//===----------------------------------------------------------------------===//

#include "FakeCuda.h"
#include "kiln/Lazy/Jit.h"

#include "llvm/ADT/ScopeExit.h"

using namespace kiln;

namespace {

class LazyGraphTest : public FakeCudaTest {};

/// Counters of one step on the stand-in driver.
struct StepCounts {
  uint64_t graphLaunches, captures, graphUpdates, nodeUpdates;
  int directLaunches;
  uint64_t h2d, d2h;
};

StepCounts countNow() {
  kiln_rt_cuda_graph_stats graphs;
  kiln_rt_cuda_get_graph_stats(&graphs);
  Metrics m = metrics();
  int *launches = getFakeCudaSymbol<int>("fake_cuda_launches");
  return {graphs.launches,     graphs.captures,           graphs.graph_updates,
          graphs.node_updates, launches ? *launches : -1, m.h2dBytes,
          m.d2hBytes};
}

/// A batch of `rows` x `columns`, different at each step.
Tensor batchOf(int64_t rows, int64_t columns, int step) {
  std::vector<float> xs(rows * columns);
  for (size_t i = 0; i < xs.size(); ++i)
    xs[i] = 0.05f * static_cast<float>((i * 5 + step) % 13) - 0.3f;
  return input({rows, columns}, xs);
}

/// Weights of `rows` x `columns`.
Tensor weightsOf(int64_t rows, int64_t columns, float scale) {
  std::vector<float> ws(rows * columns);
  for (size_t i = 0; i < ws.size(); ++i)
    ws[i] = scale * (static_cast<float>(i % 7) - 3.0f);
  return input({rows, columns}, ws);
}

// A two-layer MLP's SGD step, recorded lazily each step (products,
// elementwise kernels, reductions, both layers' gradients and updates):
// after the steps that capture the graphs its alternating buffers need,
// each step is exactly one graph launch, with no direct launch, capture or
// update, and moves only its batch to the device and nothing back.
TEST_F(LazyGraphTest, ATrainingStepIsOneGraphLaunch) {
  useDriver(KILN_FAKE_CUDA_DRIVER, KILN_FAKE_CUBLAS);
  ASSERT_FALSE(static_cast<bool>(setDevice(Device::Cuda)));
  Tensor w1 = weightsOf(6, 8, 0.1f), w2 = weightsOf(8, 3, 0.2f);
  const int64_t batch = 16;
  for (int step = 0; step < 40; ++step) {
    StepCounts before = countNow();
    Tensor x = batchOf(batch, 6, step);
    Tensor y = matmul(tanh(matmul(x, w1)), w2);
    Tensor loss = sum(y * y, {0, 1});
    std::vector<Tensor> grads = grad({loss}, {w1, w2});
    Tensor next1 = w1 - grads[0] * 0.01, next2 = w2 - grads[1] * 0.01;
    ASSERT_FALSE(static_cast<bool>(sync({loss, next1, next2})));
    w1 = next1;
    w2 = next2;
    StepCounts after = countNow();
    if (step < 8)
      continue;
    EXPECT_EQ(after.graphLaunches - before.graphLaunches, 1u) << step;
    EXPECT_EQ(after.directLaunches, before.directLaunches) << step;
    EXPECT_EQ(after.captures, before.captures) << step;
    EXPECT_EQ(after.graphUpdates, before.graphUpdates) << step;
    EXPECT_EQ(after.h2d - before.h2d,
              static_cast<uint64_t>(batch * 6 * sizeof(float)))
        << step;
    EXPECT_EQ(after.d2h, before.d2h) << step;
  }
}

/// A 4x4 permutation that moves row i to row (i + shift) % 4 from the left.
Tensor permutation(int shift) {
  std::vector<float> p(16, 0.0f);
  for (int i = 0; i < 4; ++i)
    p[((i + shift) % 4) * 4 + i] = 1.0f;
  return input({4, 4}, p);
}

// A matmul-only loop (which the stand-in computes; permutations keep the
// values exact) with graphs for every program: the values equal the
// CPU's.
TEST_F(LazyGraphTest, GraphReplaysComputeWhatDirectRunsCompute) {
  useDriver(KILN_FAKE_CUDA_DRIVER, KILN_FAKE_CUBLAS);
  auto train = [](Device device, const char *graphs) {
    setenv("KILN_CUDA_GRAPHS", graphs, 1);
    llvm::scope_exit restore([] { unsetenv("KILN_CUDA_GRAPHS"); });
    EXPECT_FALSE(static_cast<bool>(setDevice(device)));
    Tensor w = weightsOf(4, 4, 0.5f), v = permutation(3);
    for (int step = 0; step < 30; ++step) {
      w = matmul(matmul(permutation(step % 3 + 1), w), v);
      if (llvm::Error e = sync({w})) {
        ADD_FAILURE() << llvm::toString(std::move(e));
        return std::vector<float>();
      }
    }
    return values(w);
  };
  kiln_rt_cuda_graph_stats before;
  kiln_rt_cuda_get_graph_stats(&before);
  std::vector<float> graphed = train(Device::Cuda, "1");
  kiln_rt_cuda_graph_stats after;
  kiln_rt_cuda_get_graph_stats(&after);
  EXPECT_GE(after.launches - before.launches, 25u);
  std::vector<float> onCpu = train(Device::Cpu, "0");
  ASSERT_EQ(graphed.size(), onCpu.size());
  EXPECT_EQ(graphed, onCpu);
}

// A kiln::Jit replay on the cuda device is one graph launch: no recording,
// no direct launch, only its batch uploaded.
TEST_F(LazyGraphTest, AJitReplayIsOneGraphLaunch) {
  useDriver(KILN_FAKE_CUDA_DRIVER, KILN_FAKE_CUBLAS);
  ASSERT_FALSE(static_cast<bool>(setDevice(Device::Cuda)));
  Jit step([](llvm::ArrayRef<Tensor> in) {
    Tensor h = tanh(matmul(in[2], in[0]));
    Tensor loss = sum(matmul(h, in[1]) * matmul(h, in[1]), {0, 1});
    std::vector<Tensor> grads = grad({loss}, {in[0], in[1]});
    return std::vector<Tensor>{in[0] - grads[0] * 0.01, in[1] - grads[1] * 0.01,
                               loss};
  });
  Tensor w1 = weightsOf(5, 7, 0.1f), w2 = weightsOf(7, 2, 0.3f);
  for (int s = 0; s < 30; ++s) {
    Tensor x = batchOf(9, 5, s);
    StepCounts before = countNow();
    Metrics traced = metrics();
    llvm::Expected<std::vector<Tensor>> out = step({w1, w2, x});
    ASSERT_TRUE(static_cast<bool>(out)) << llvm::toString(out.takeError());
    StepCounts after = countNow();
    w1 = (*out)[0];
    w2 = (*out)[1];
    if (s < 8)
      continue;
    EXPECT_EQ(metrics().tracedOps, traced.tracedOps) << s;
    EXPECT_EQ(after.graphLaunches - before.graphLaunches, 1u) << s;
    EXPECT_EQ(after.directLaunches, before.directLaunches) << s;
    EXPECT_EQ(after.captures, before.captures) << s;
    EXPECT_EQ(after.graphUpdates, before.graphUpdates) << s;
    EXPECT_EQ(after.h2d - before.h2d, 9u * 5u * sizeof(float)) << s;
    EXPECT_EQ(after.d2h, before.d2h) << s;
  }
  EXPECT_GE(step.getNumReplays(), 28);
}

// Graphs hold their temporaries for speed only: when a device allocation
// runs out of memory, every graph not running gives them back before the
// allocator tries again, and the step after captures again.
TEST_F(LazyGraphTest, GraphsGiveTheirMemoryBackWhenTheDeviceRunsOut) {
  useDriver(KILN_FAKE_CUDA_DRIVER, KILN_FAKE_CUBLAS);
  ASSERT_FALSE(static_cast<bool>(setDevice(Device::Cuda)));
  Tensor w1 = weightsOf(6, 8, 0.1f), w2 = weightsOf(8, 3, 0.2f);
  auto step = [&](int s) {
    Tensor y = matmul(tanh(matmul(batchOf(16, 6, s), w1)), w2);
    std::vector<Tensor> grads = grad({sum(y * y, {0, 1})}, {w1, w2});
    Tensor next1 = w1 - grads[0] * 0.01, next2 = w2 - grads[1] * 0.01;
    ASSERT_FALSE(static_cast<bool>(sync({next1, next2})));
    w1 = next1;
    w2 = next2;
  };
  for (int s = 0; s < 12; ++s)
    step(s);
  ASSERT_FALSE(static_cast<bool>(synchronize()));
  uint64_t withGraphs = metrics().deviceLiveBytes;
  // The next new allocation fails once: the graphs go, the cache is given
  // back, and the allocation succeeds.
  setenv("FAKE_CUDA_FAIL", "cuMemAlloc_v2", 1);
  setenv("FAKE_CUDA_FAIL_COUNT", "1", 1);
  Tensor big = input({300, 300}, std::vector<float>(90000, 0.5f));
  llvm::Error error = sync({matmul(big, big)});
  unsetenv("FAKE_CUDA_FAIL");
  unsetenv("FAKE_CUDA_FAIL_COUNT");
  ASSERT_FALSE(static_cast<bool>(error)) << llvm::toString(std::move(error));
  big = Tensor();
  ASSERT_FALSE(static_cast<bool>(synchronize()));
  EXPECT_LT(metrics().deviceLiveBytes, withGraphs)
      << "the graphs' temporaries are still held";
  // The training step captures again, and is one graph launch again.
  uint64_t captures = countNow().captures;
  for (int s = 12; s < 24; ++s)
    step(s);
  EXPECT_GT(countNow().captures, captures);
  StepCounts before = countNow();
  step(24);
  EXPECT_EQ(countNow().graphLaunches - before.graphLaunches, 1u);
}

} // namespace
