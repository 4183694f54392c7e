//===- kiln-bench-trace.cpp - the lazy tensors' host overhead -------------===//
//
// Records one training step of a two-step LSTM (forward, kiln::grad, SGD
// update) on tiny tensors with kiln::Tensor, materializes it, and repeats.
// The first step compiles; every later one must hit the trace cache. Prints
// one JSON line:
//   ns_per_op      recording cost per traced op (data inputs included)
//   hit_step_us    median host time to materialize a cache-hit step
//                  (extract, hash, look up, run, store results), kernel
//                  and BLAS time excluded
//   step_us        median time of a whole step (record, materialize, read
//                  the loss), kernel timing off as by default
//   ops_per_step, compiles, steps, kernel_us (median), loss_first/last.
//   jit_replay_us  median host time of the same step replayed by kiln::Jit
//                  (bind, run, wrap results; kernel and BLAS time
//                  excluded), and jit_step_us the whole replayed step
//                  (the loss read; kernel timing off)
// hit_step_us and jit_replay_us come from a pass with kernel timing on
// (its clock reads count as host time); step_us and jit_step_us from a
// second pass without it.
//
// Usage: kiln-bench-trace [STEPS]   (default 1000)
//
//===----------------------------------------------------------------------===//

#include "kiln/Lazy/Jit.h"
#include "kiln/Lazy/Tensor.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

using namespace kiln;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int64_t batch = 4, inputSize = 8, hidden = 8, seqLength = 2;

struct Weights {
  Tensor wx, wh, bias;
};

Tensor randomTensor(std::mt19937 &rng, std::vector<int64_t> shape,
                    double scale) {
  HostTensor data(DType::F32, shape);
  std::uniform_real_distribution<double> dist(-scale, scale);
  for (int64_t i = 0; i < data.getNumElements(); ++i)
    data.setFromDouble(i, dist(rng));
  return Tensor::fromHost(std::move(data));
}

/// One LSTM cell step: gates = x Wx^T + h Wh^T + b, split in four.
std::pair<Tensor, Tensor> cell(const Weights &w, const Tensor &x,
                               const Tensor &h, const Tensor &c) {
  Tensor gates =
      matmul(x, w.wx, false, true) + matmul(h, w.wh, false, true) + w.bias;
  std::vector<Tensor> g = chunk(gates, 4, 1);
  Tensor in = sigmoid(g[0]), forget = sigmoid(g[1]), cellIn = tanh(g[2]),
         out = sigmoid(g[3]);
  Tensor cNext = forget * c + in * cellIn;
  return {out * tanh(cNext), cNext};
}

double median(std::vector<double> v) {
  if (v.empty())
    return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int fail(const std::string &message) {
  std::fprintf(stderr, "kiln-bench-trace: error: %s\n", message.c_str());
  return 1;
}

} // namespace

int main(int argc, char **argv) {
  int64_t steps = 1000;
  if (argc > 2 || (argc == 2 && (steps = std::atoll(argv[1])) < 3))
    return fail("usage: kiln-bench-trace [STEPS >= 3]");

  std::mt19937 rng(2026);
  Weights w{randomTensor(rng, {4 * hidden, inputSize}, 0.3),
            randomTensor(rng, {4 * hidden, hidden}, 0.3),
            randomTensor(rng, {4 * hidden}, 0.1)};
  // The data of every step, made before timing.
  std::vector<HostTensor> xs, targets;
  for (int64_t s = 0; s < steps * seqLength; ++s) {
    HostTensor x(DType::F32, {batch, inputSize}),
        y(DType::F32, {batch, hidden});
    std::uniform_real_distribution<double> dist(-1, 1);
    for (int64_t i = 0; i < x.getNumElements(); ++i)
      x.setFromDouble(i, dist(rng));
    for (int64_t i = 0; i < y.getNumElements(); ++i)
      y.setFromDouble(i, 0.5 * dist(rng));
    xs.push_back(std::move(x));
    targets.push_back(std::move(y));
  }

  const double learningRate = 0.1;
  // One step recorded and materialized: the new weights and the loss.
  // One step of SGD on `data` (x and target of each time step): the new
  // weights, and the loss in `loss`.
  auto sgdStep = [&](const Weights &w, llvm::ArrayRef<Tensor> data,
                     Tensor &loss) {
    Tensor h = Tensor::zeros({batch, hidden}),
           c = Tensor::zeros({batch, hidden});
    for (int64_t t = 0; t < seqLength; ++t) {
      std::tie(h, c) = cell(w, data[2 * t], h, c);
      Tensor diff = h - data[2 * t + 1];
      Tensor term = sum(diff * diff, {0, 1});
      loss = t == 0 ? term : loss + term;
    }
    std::vector<Tensor> grads = grad({loss}, {w.wx, w.wh, w.bias});
    return Weights{w.wx - learningRate * grads[0],
                   w.wh - learningRate * grads[1],
                   w.bias - learningRate * grads[2]};
  };
  // The data of step `s`, borrowed.
  auto stepData = [&](int64_t s) {
    std::vector<Tensor> data;
    for (int64_t t = 0; t < seqLength; ++t) {
      data.push_back(Tensor::wrap(xs[s * seqLength + t].getData(), DType::F32,
                                  {batch, inputSize}));
      data.push_back(Tensor::wrap(targets[s * seqLength + t].getData(),
                                  DType::F32, {batch, hidden}));
    }
    return data;
  };
  auto recordStep = [&](const Weights &w, int64_t s, Tensor &loss) {
    return sgdStep(w, stepData(s), loss);
  };
  auto readLoss = [](const Tensor &loss) -> llvm::Expected<double> {
    llvm::Expected<HostTensor> value = loss.toHost();
    if (!value)
      return value.takeError();
    return value->getAsDouble(0);
  };

  // Pass 1, kernel timing on: recording per op, and the host time of a
  // cache-hit step (its kernels' time excluded).
  setKernelTiming(true);
  Weights initial = w;
  Metrics start = metrics();
  std::vector<double> recordNs, hitUs, kernelUs;
  int64_t opsPerStep = 0;
  double lossFirst = 0, lossLast = 0;
  for (int64_t s = 0; s < steps; ++s) {
    Metrics before = metrics();
    Clock::time_point t0 = Clock::now();
    Tensor loss;
    Weights next = recordStep(w, s, loss);
    Clock::time_point t1 = Clock::now();
    if (llvm::Error e = sync({next.wx, next.wh, next.bias, loss}))
      return fail(llvm::toString(std::move(e)));
    Clock::time_point t2 = Clock::now();
    Metrics after = metrics();

    int64_t ops = after.tracedOps - before.tracedOps;
    opsPerStep = ops;
    double kernel = (after.kernelMs - before.kernelMs) * 1e3;
    recordNs.push_back(
        std::chrono::duration<double, std::nano>(t1 - t0).count() / ops);
    if (s > 0) {
      hitUs.push_back(
          std::chrono::duration<double, std::micro>(t2 - t1).count() - kernel);
      kernelUs.push_back(kernel);
    }
    llvm::Expected<double> value = readLoss(loss);
    if (!value)
      return fail(llvm::toString(value.takeError()));
    (s == 0 ? lossFirst : lossLast) = *value;
    w = std::move(next);
  }
  Metrics end = metrics();
  if (end.compiles - start.compiles != 1 ||
      end.cacheHits - start.cacheHits != steps - 1)
    return fail("expected one compile and " + std::to_string(steps - 1) +
                " cache hits, got " +
                std::to_string(end.compiles - start.compiles) + " and " +
                std::to_string(end.cacheHits - start.cacheHits));

  // The same step, functional, replayed by kiln::Jit: inputs are the
  // weights and the step's data; outputs the new weights and the loss.
  Jit jitStep([&](llvm::ArrayRef<Tensor> in) -> std::vector<Tensor> {
    Tensor loss;
    Weights next = sgdStep({in[0], in[1], in[2]}, in.drop_front(3), loss);
    return {next.wx, next.wh, next.bias, loss};
  });
  auto jitInputs = [&](const Weights &w, int64_t s) {
    std::vector<Tensor> in{w.wx, w.wh, w.bias};
    llvm::append_range(in, stepData(s));
    return in;
  };
  std::vector<double> jitHostUs;
  for (int64_t s = 0; s < steps; ++s) {
    std::vector<Tensor> in = jitInputs(w, s);
    Metrics before = metrics();
    Clock::time_point t0 = Clock::now();
    llvm::Expected<std::vector<Tensor>> out = jitStep(in);
    Clock::time_point t1 = Clock::now();
    if (!out)
      return fail(llvm::toString(out.takeError()));
    Metrics after = metrics();
    if (after.replays > before.replays) {
      double kernel = (after.kernelMs - before.kernelMs) * 1e3;
      double total = std::chrono::duration<double, std::micro>(t1 - t0).count();
      jitHostUs.push_back(total - kernel);
    }
    w = Weights{(*out)[0], (*out)[1], (*out)[2]};
  }
  if (jitStep.getNumReplays() != steps - 2)
    return fail("expected " + std::to_string(steps - 2) + " replays, got " +
                std::to_string(jitStep.getNumReplays()));

  // Pass 2, as a user runs (kernel timing off, its clock reads gone): whole
  // steps, the loss read as the peers read it, recorded and then replayed.
  setKernelTiming(false);
  std::vector<double> stepUs, jitStepUs;
  w = initial;
  for (int64_t s = 0; s < steps; ++s) {
    Clock::time_point t0 = Clock::now();
    Tensor loss;
    Weights next = recordStep(w, s, loss);
    if (llvm::Error e = sync({next.wx, next.wh, next.bias, loss}))
      return fail(llvm::toString(std::move(e)));
    llvm::Expected<double> value = readLoss(loss);
    Clock::time_point t1 = Clock::now();
    if (!value)
      return fail(llvm::toString(value.takeError()));
    stepUs.push_back(
        std::chrono::duration<double, std::micro>(t1 - t0).count());
    w = std::move(next);
  }
  for (int64_t s = 0; s < steps; ++s) {
    std::vector<Tensor> in = jitInputs(w, s);
    Clock::time_point t0 = Clock::now();
    llvm::Expected<std::vector<Tensor>> out = jitStep(in);
    if (!out)
      return fail(llvm::toString(out.takeError()));
    llvm::Expected<double> value = readLoss((*out)[3]);
    Clock::time_point t1 = Clock::now();
    if (!value)
      return fail(llvm::toString(value.takeError()));
    jitStepUs.push_back(
        std::chrono::duration<double, std::micro>(t1 - t0).count());
    w = Weights{(*out)[0], (*out)[1], (*out)[2]};
  }

  std::printf("{\"jit_replay_us\": %.2f, \"jit_step_us\": %.2f, ",
              median(jitHostUs), median(jitStepUs));
  std::printf(
      "\"ns_per_op\": %.1f, \"hit_step_us\": %.2f, \"hit_step_goal_us\": "
      "%.2f, \"step_us\": %.2f, \"kernel_us\": %.2f, \"ops_per_step\": %lld, "
      "\"compiles\": %lld, \"cache_hits\": %lld, \"steps\": %lld, "
      "\"compile_ms\": %.1f, \"loss_first\": %.5f, \"loss_last\": %.5f}\n",
      median(recordNs), median(hitUs), 20 + 0.05 * opsPerStep, median(stepUs),
      median(kernelUs), static_cast<long long>(opsPerStep),
      static_cast<long long>(end.compiles - start.compiles),
      static_cast<long long>(end.cacheHits - start.cacheHits),
      static_cast<long long>(steps), end.compileMs - start.compileMs, lossFirst,
      lossLast);
  return 0;
}
