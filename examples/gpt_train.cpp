//===- gpt_train.cpp - a GPT block trained with kiln::Tensor --------------===//
//
// One pre-LayerNorm GPT block (bench/transformer/gpt_block.py's: causal
// multi-head attention, a tanh-GELU MLP, residuals), trained with SGD as a
// lazy step: each step records the forward, kiln::grad of the loss with
// respect to all 12 parameters, and the update; kiln::sync compiles that
// program once and replays it from the trace cache after.
//
// The task: a fixed random "teacher" block of the same shape maps random
// inputs to targets; the student, initialized elsewhere, learns to match
// it (mean squared error), so the loss must fall.
//
// Usage: kiln-gpt-train [STEPS] [--batch B] [--seq T] [--width C]
//                       [--heads H] [--lr LR] [--data-parallel]
//                       [--bucket-kb KB]
// (defaults 200 steps, B=4, T=32, C=64, H=4, LR=0.05). Prints the loss
// every 50 steps, the throughput, and kiln::metrics() (MetricsLine.h);
// exits non-zero if the loss did not fall below 0.8 of
// its first value (given 100 steps or more).
//
// --data-parallel: under an MPI launcher, each rank trains on batches of
// its own (B sequences each, so the global batch is B x ranks) and the
// ranks average their gradients in buckets of --bucket-kb (default 25 MB)
// before the update; the loss printed is the ranks' mean.
//
//===----------------------------------------------------------------------===//

#include "MetricsLine.h"
#include "kiln/Lazy/Distributed.h"
#include "kiln/Lazy/Tensor.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace kiln;

namespace {

struct Config {
  int64_t steps = 200, batch = 4, seq = 32, width = 64, heads = 4;
  double lr = 0.05;
  bool dataParallel = false;
  double bucketKb = 25 * 1024;
};

/// The block's parameters, in gpt_block.py's order.
struct Block {
  std::vector<Tensor> params;
  const Tensor &operator[](size_t i) const { return params[i]; }
};

Tensor hostTensor(std::mt19937 &rng, std::vector<int64_t> shape, double scale,
                  double offset = 0) {
  HostTensor data(DType::F32, shape);
  std::normal_distribution<double> dist(0.0, 1.0);
  for (int64_t i = 0; i < data.getNumElements(); ++i)
    data.setFromDouble(i, offset + scale * dist(rng));
  return Tensor::fromHost(std::move(data));
}

Block initBlock(std::mt19937 &rng, int64_t c) {
  double s = 1.0 / std::sqrt(static_cast<double>(c));
  return {{hostTensor(rng, {c}, 0.0, 1.0), hostTensor(rng, {c}, 0.0),
           hostTensor(rng, {c, 3 * c}, s), hostTensor(rng, {3 * c}, 0.0),
           hostTensor(rng, {c, c}, s), hostTensor(rng, {c}, 0.0),
           hostTensor(rng, {c}, 0.0, 1.0), hostTensor(rng, {c}, 0.0),
           hostTensor(rng, {c, 4 * c}, s), hostTensor(rng, {4 * c}, 0.0),
           hostTensor(rng, {4 * c, c}, 0.5 * s), hostTensor(rng, {c}, 0.0)}};
}

/// LayerNorm over the last dim of x [N, C].
Tensor layerNorm(const Tensor &x, const Tensor &g, const Tensor &b) {
  int64_t n = x.getShape()[0], c = x.getShape()[1];
  Tensor mu = reshape(mean(x, {1}), {n, 1});
  Tensor centered = x - mu;
  Tensor var = reshape(mean(centered * centered, {1}), {n, 1});
  (void)c;
  return centered * rsqrt(var + 1e-5) * g + b;
}

/// The block on x [B*T, C] with the additive causal mask [T, T].
Tensor block(const Config &cfg, const Block &p, const Tensor &x,
             const Tensor &mask) {
  int64_t b = cfg.batch, t = cfg.seq, c = cfg.width, h = cfg.heads, d = c / h;
  Tensor qkv = matmul(layerNorm(x, p[0], p[1]), p[2]) + p[3];
  // [B*T, 3C] -> three [B*H, T, D].
  auto heads = [&](int64_t which) {
    Tensor part = narrow(qkv, 1, which * c, c);
    return reshape(transpose(reshape(part, {b, t, h, d}), {0, 2, 1, 3}),
                   {b * h, t, d});
  };
  Tensor q = heads(0), k = heads(1), v = heads(2);
  Tensor scores =
      matmul(q, k, false, true) * (1.0 / std::sqrt(static_cast<double>(d))) +
      mask;
  Tensor attended = matmul(softmax(scores, 2), v);
  Tensor joined = reshape(
      transpose(reshape(attended, {b, h, t, d}), {0, 2, 1, 3}), {b * t, c});
  Tensor x1 = x + matmul(joined, p[4]) + p[5];
  Tensor hidden = gelu(matmul(layerNorm(x1, p[6], p[7]), p[8]) + p[9], true);
  return x1 + matmul(hidden, p[10]) + p[11];
}

int fail(const std::string &message) {
  std::fprintf(stderr, "kiln-gpt-train: error: %s\n", message.c_str());
  return 1;
}

bool parse(int argc, char **argv, Config &cfg, std::string &error) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](double &out) {
      if (i + 1 >= argc) {
        error = arg + " needs a value";
        return false;
      }
      char *end = nullptr;
      out = std::strtod(argv[++i], &end);
      if (!end || *end || !(out > 0)) {
        error = arg + " needs a positive number, not '" + argv[i] + "'";
        return false;
      }
      return true;
    };
    double number = 0;
    if (arg == "--lr" || arg == "--bucket-kb") {
      if (!value(arg == "--lr" ? cfg.lr : cfg.bucketKb))
        return false;
      continue;
    }
    if (arg == "--data-parallel") {
      cfg.dataParallel = true;
      continue;
    }
    int64_t *field = arg == "--batch"   ? &cfg.batch
                     : arg == "--seq"   ? &cfg.seq
                     : arg == "--width" ? &cfg.width
                     : arg == "--heads" ? &cfg.heads
                                        : nullptr;
    if (field) {
      if (!value(number))
        return false;
      *field = static_cast<int64_t>(number);
      continue;
    }
    char *end = nullptr;
    long long steps = std::strtoll(arg.c_str(), &end, 10);
    if (!end || *end || steps < 1) {
      error = "unknown argument '" + arg +
              "' (usage: kiln-gpt-train [STEPS] [--batch B] [--seq T] "
              "[--width C] [--heads H] [--lr LR] [--data-parallel] "
              "[--bucket-kb KB])";
      return false;
    }
    cfg.steps = steps;
  }
  if (cfg.width % cfg.heads) {
    error = "--width must be a multiple of --heads";
    return false;
  }
  return true;
}

} // namespace

int main(int argc, char **argv) {
  Config cfg;
  std::string error;
  if (!parse(argc, argv, cfg, error))
    return fail(error);
  int rank = 0, ranks = 1;
  if (cfg.dataParallel) {
    if (llvm::Error e = distributed::init())
      return fail(llvm::toString(std::move(e)));
    rank = distributed::rank();
    ranks = distributed::size();
    if (rank != 0 && !std::freopen("/dev/null", "w", stdout))
      return fail("cannot silence rank " + std::to_string(rank));
    std::printf("data parallel: %d ranks (%s), %lld sequences each\n", ranks,
                distributed::backend(), (long long)cfg.batch);
  }
  // Leaves the job on every exit path (MPI_Abort after a failed collective).
  struct Finalize {
    bool active;
    ~Finalize() {
      if (active)
        distributed::finalize();
    }
  } finalize{cfg.dataParallel};
  std::mt19937 rng(11);
  Block teacher = initBlock(rng, cfg.width);
  Block student = initBlock(rng, cfg.width);
  HostTensor maskData(DType::F32, {cfg.seq, cfg.seq});
  for (int64_t i = 0; i < cfg.seq; ++i)
    for (int64_t j = 0; j < cfg.seq; ++j)
      maskData.setFromDouble(i * cfg.seq + j, j <= i ? 0.0 : -1e9);
  Tensor mask = Tensor::fromHost(std::move(maskData));
  // The teacher's outputs are data: computed once per batch, outside the
  // step (a few fixed batches, cycled).
  // Every rank draws every rank's batches and keeps its own.
  std::vector<Tensor> inputs, targets;
  for (int i = 0; i < 4 * ranks; ++i) {
    Tensor input = hostTensor(rng, {cfg.batch * cfg.seq, cfg.width}, 1.0);
    if (i % ranks != rank)
      continue;
    inputs.push_back(input);
    targets.push_back(block(cfg, teacher, inputs.back(), mask));
    if (llvm::Error e = sync({targets.back()}))
      return fail(llvm::toString(std::move(e)));
  }

  Metrics start = metrics();
  double firstLoss = 0, lastLoss = 0;
  auto begin = std::chrono::steady_clock::now(), afterFirst = begin;
  // The collectives after the first step (which compiles, unevenly).
  distributed::Stats collectivesAfterFirst;
  for (int64_t step = 1; step <= cfg.steps; ++step) {
    const Tensor &x = inputs[step % inputs.size()];
    Tensor diff = block(cfg, student, x, mask) - targets[step % inputs.size()];
    Tensor loss = mean(diff * diff, {0, 1});
    std::vector<Tensor> grads = grad({loss}, student.params);
    if (cfg.dataParallel) {
      grads = distributed::averageGradients(
          grads, static_cast<int64_t>(cfg.bucketKb * 1024));
      loss = allReduce(loss, Reduction::Mean);
    }
    std::vector<Tensor> next;
    for (size_t i = 0; i < grads.size(); ++i)
      next.push_back(student.params[i] - grads[i] * cfg.lr);
    std::vector<Tensor> wanted = next;
    wanted.push_back(loss);
    if (llvm::Error e = sync(wanted))
      return fail(llvm::toString(std::move(e)));
    student.params = next;
    // Read only where printed: the steps in between never wait.
    if (step == 1 || step % 50 == 0 || step == cfg.steps) {
      llvm::Expected<HostTensor> value = loss.toHost();
      if (!value)
        return fail(llvm::toString(value.takeError()));
      lastLoss = value->getAsDouble(0);
      if (step == 1)
        firstLoss = lastLoss;
      std::printf("step %4lld  loss %.4f\n", (long long)step, lastLoss);
    }
    if (step == 1) {
      afterFirst = std::chrono::steady_clock::now();
      collectivesAfterFirst = distributed::stats();
    }
  }
  if (llvm::Error e = synchronize())
    return fail(llvm::toString(std::move(e)));
  auto end = std::chrono::steady_clock::now();
  double firstMs =
      std::chrono::duration<double, std::milli>(afterFirst - begin).count();
  double restS = std::chrono::duration<double>(end - afterFirst).count();
  double rate = cfg.steps > 1 ? (cfg.steps - 1) / restS : 0.0;
  // Two decimals below 10 steps/s (a sanitized build on the stand-in
  // driver), so that a slow rate never reads as 0.
  std::printf("throughput: %.*f steps/s after the first step (%.1f ms, "
              "compile included)\n",
              rate < 10 ? 2 : 0, rate, firstMs);
  printMetricsLine(start, metrics());
  if (cfg.dataParallel)
    printCollectivesLine(collectivesAfterFirst, distributed::stats(),
                         cfg.steps - 1, restS);
  if (cfg.steps >= 100 && !(lastLoss < 0.8 * firstLoss))
    return fail("the loss did not fall as it should (from " +
                std::to_string(firstLoss) + " to " + std::to_string(lastLoss) +
                ")");
  return 0;
}
