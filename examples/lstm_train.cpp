//===- lstm_train.cpp - an LSTM language model trained with kiln::Tensor ===//
//
// A small LSTM language model on a synthetic language, trained with SGD,
// written with kiln's lazy tensors. Each step records the forward (token
// embeddings, an unrolled LSTM, a softmax cross-entropy over the next
// token), kiln::grad of the loss with respect to every weight, and the SGD
// update; kiln::sync compiles that program once and, from then on, finds it
// in the trace cache: every later step only records and runs.
//
// The language: each sequence is a random start token, a stride (1 to 3)
// as its second token, then counts up from the start by that stride,
// modulo the vocabulary. Only the stride is unpredictable: the model must
// learn to read it from context, and its loss falls from log(vocab) = 2.77
// toward log(3) / 8 = 0.14.
//
// Usage: kiln-lstm-train [STEPS] [--data-parallel] [--bucket-kb KB]
//                        [--save-weights DIR]
// (STEPS defaults to 300). Prints the loss as it trains, the throughput and
// kiln::metrics(); exits non-zero if the loss did not fall (below half its
// first value, given 200 steps or more).
//
// --data-parallel: under an MPI launcher (mpirun -np N), each of the N
// ranks takes its 1/N of every batch of 32 sequences (all ranks draw the
// same batches), and the ranks average their gradients
// (kiln::distributed::averageGradients) before the update: the weights stay
// those of one process training on the whole batch. The loss printed is
// the ranks' mean, the whole batch's. Rank 0 alone prints. --bucket-kb:
// the most gradient bytes one all_reduce takes (default 25 MB).
// --save-weights DIR: writes the final weights to DIR/<name>.npy (rank 0).
//
//===----------------------------------------------------------------------===//

#include "MetricsLine.h"
#include "kiln/Lazy/Distributed.h"
#include "kiln/Lazy/Tensor.h"
#include "kiln/Support/Npy.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

using namespace kiln;

namespace {

constexpr int64_t vocab = 16, globalBatch = 32, seqLength = 8, embedding = 16,
                  hidden = 64;
/// The sequences of a batch this process trains on: all of them, or its
/// rank's share under --data-parallel.
int64_t batch = globalBatch;
constexpr double learningRate = 1.0;

/// The model's weights: token embeddings, the LSTM's gate weights, and the
/// output projection.
struct Model {
  Tensor embed, wx, wh, bias, wout, bout;

  static constexpr const char *names[] = {"embed", "wx",   "wh",
                                          "bias",  "wout", "bout"};
  std::vector<Tensor> all() const { return {embed, wx, wh, bias, wout, bout}; }
  void set(const std::vector<Tensor> &w) {
    embed = w[0], wx = w[1], wh = w[2], bias = w[3], wout = w[4], bout = w[5];
  }
};

Tensor uniform(std::mt19937 &rng, std::vector<int64_t> shape, double scale) {
  HostTensor data(DType::F32, shape);
  std::uniform_real_distribution<double> dist(-scale, scale);
  for (int64_t i = 0; i < data.getNumElements(); ++i)
    data.setFromDouble(i, dist(rng));
  return Tensor::fromHost(std::move(data));
}

/// One batch: per position, the tokens one-hot ([batch, vocab]); the
/// targets are the next position's tokens. A sequence is its start, its
/// stride (1 to 3), then start + stride, start + 2 stride, ... (mod vocab).
/// Every rank draws the whole batch, and keeps sequences [first, first +
/// batch).
std::vector<HostTensor> makeBatch(std::mt19937 &rng, int64_t first) {
  std::uniform_int_distribution<int64_t> token(0, vocab - 1), stride(1, 3);
  std::vector<HostTensor> positions;
  for (int64_t t = 0; t <= seqLength; ++t)
    positions.emplace_back(DType::F32, std::vector<int64_t>{batch, vocab});
  for (int64_t b = 0; b < globalBatch; ++b) {
    int64_t start = token(rng), step = stride(rng);
    if (b < first || b >= first + batch)
      continue;
    for (int64_t t = 0; t <= seqLength; ++t) {
      int64_t value = t == 0   ? start
                      : t == 1 ? step
                               : (start + (t - 1) * step) % vocab;
      positions[t].setFromDouble((b - first) * vocab + value, 1.0);
    }
  }
  return positions;
}

/// The mean cross-entropy of predicting each next token.
Tensor loss(const Model &m, const std::vector<HostTensor> &tokens) {
  Tensor h = Tensor::zeros({batch, hidden}), c = Tensor::zeros({batch, hidden});
  // Each position is one tensor: the target of one step is the input of
  // the next (on the GPU, uploaded once).
  std::vector<Tensor> positions;
  for (const HostTensor &position : tokens)
    positions.push_back(
        Tensor::wrap(position.getData(), DType::F32, {batch, vocab}));
  Tensor total;
  for (int64_t t = 0; t < seqLength; ++t) {
    const Tensor &input = positions[t], &target = positions[t + 1];
    Tensor x = matmul(input, m.embed);
    Tensor gates =
        matmul(x, m.wx, false, true) + matmul(h, m.wh, false, true) + m.bias;
    std::vector<Tensor> g = chunk(gates, 4, 1);
    c = sigmoid(g[1]) * c + sigmoid(g[0]) * tanh(g[2]);
    h = sigmoid(g[3]) * tanh(c);
    Tensor logits = matmul(h, m.wout) + m.bout;
    // log softmax, shifted by the row maximum for stability.
    Tensor shifted = logits - reshape(amax(logits, {1}), {batch, 1});
    Tensor logSumExp = log(sum(exp(shifted), {1}));
    Tensor nll = sum(logSumExp - sum(shifted * target, {1}), {0});
    total = t == 0 ? nll : total + nll;
  }
  return total / double(batch * seqLength);
}

int fail(const std::string &message) {
  std::fprintf(stderr, "kiln-lstm-train: error: %s\n", message.c_str());
  return 1;
}

} // namespace

int main(int argc, char **argv) {
  int64_t steps = 300;
  bool dataParallel = false;
  std::string saveWeights;
  int64_t bucketBytes = 25 << 20;
  bool sawSteps = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--data-parallel")
      dataParallel = true;
    else if (arg == "--save-weights" && i + 1 < argc)
      saveWeights = argv[++i];
    else if (arg == "--bucket-kb" && i + 1 < argc &&
             (bucketBytes = std::atoll(argv[++i]) * 1024) > 0)
      continue;
    else if (!sawSteps && !arg.empty() && arg[0] != '-' &&
             (steps = std::atoll(arg.c_str())) >= 1)
      sawSteps = true;
    else
      return fail("usage: kiln-lstm-train [STEPS >= 1] [--data-parallel] "
                  "[--bucket-kb KB] [--save-weights DIR]");
  }
  int rank = 0, ranks = 1;
  if (dataParallel) {
    if (llvm::Error e = distributed::init())
      return fail(llvm::toString(std::move(e)));
    rank = distributed::rank();
    ranks = distributed::size();
    if (globalBatch % ranks != 0)
      return fail("--data-parallel: " + std::to_string(ranks) +
                  " ranks do not split a batch of " +
                  std::to_string(globalBatch) + " evenly");
    batch = globalBatch / ranks;
  }
  // Only rank 0 prints.
  if (rank != 0 && !std::freopen("/dev/null", "w", stdout))
    return fail("cannot silence rank " + std::to_string(rank));
  // Leaves the job on every exit path (MPI_Abort after a failed collective,
  // so that the peers do not wait on this rank).
  struct Finalize {
    bool active;
    ~Finalize() {
      if (active)
        distributed::finalize();
    }
  } finalize{dataParallel};

  std::mt19937 rng(7);
  Model model{uniform(rng, {vocab, embedding}, 0.5),
              uniform(rng, {4 * hidden, embedding}, 0.2),
              uniform(rng, {4 * hidden, hidden}, 0.1),
              Tensor::zeros({4 * hidden}),
              uniform(rng, {hidden, vocab}, 0.2),
              Tensor::zeros({vocab})};
  // Zeros are constants; the weights must be data (parameters).
  for (Tensor *w : {&model.bias, &model.bout}) {
    llvm::Expected<HostTensor> value = w->toHost();
    if (!value)
      return fail(llvm::toString(value.takeError()));
    *w = Tensor::fromHost(std::move(*value));
  }

  std::printf("kiln-lstm-train: vocab %lld, batch %lld, %lld steps of "
              "sequence, embedding %lld, hidden %lld, %lld SGD steps\n",
              (long long)vocab, (long long)globalBatch, (long long)seqLength,
              (long long)embedding, (long long)hidden, (long long)steps);
  if (dataParallel)
    std::printf("data parallel: %d ranks (%s), %lld sequences each\n", ranks,
                distributed::backend(), (long long)batch);
  Metrics start = metrics();
  auto begin = std::chrono::steady_clock::now();
  double firstLoss = 0, lastLoss = 0, firstStepMs = 0;
  // The collectives after the first step (which compiles, unevenly).
  distributed::Stats afterFirst;
  for (int64_t s = 0; s < steps; ++s) {
    auto stepStart = std::chrono::steady_clock::now();
    std::vector<HostTensor> tokens = makeBatch(rng, rank * batch);
    Tensor l = loss(model, tokens);
    std::vector<Tensor> weights = model.all();
    std::vector<Tensor> grads = grad({l}, weights);
    if (dataParallel) {
      // Each rank's loss is its shard's mean: the mean of the ranks'
      // gradients is the whole batch's.
      grads = distributed::averageGradients(grads, bucketBytes);
      l = allReduce(l, Reduction::Mean);
    }
    std::vector<Tensor> updated;
    for (size_t i = 0; i < weights.size(); ++i)
      updated.push_back(weights[i] - learningRate * grads[i]);
    std::vector<Tensor> wanted = updated;
    wanted.push_back(l);
    if (llvm::Error e = sync(wanted))
      return fail(llvm::toString(std::move(e)));
    model.set(updated);
    // The loss is read only where it is printed: on the GPU, the steps in
    // between never wait for the device (the host records the next step
    // while the device runs this one).
    if (s == 0 || (s + 1) % 50 == 0 || s + 1 == steps) {
      llvm::Expected<HostTensor> value = l.toHost();
      if (!value)
        return fail(llvm::toString(value.takeError()));
      lastLoss = value->getAsDouble(0);
      std::printf("step %4lld  loss %.4f\n", (long long)s + 1, lastLoss);
    }
    if (s == 0) {
      afterFirst = distributed::stats();
      firstLoss = lastLoss;
      firstStepMs = std::chrono::duration<double, std::milli>(
                        std::chrono::steady_clock::now() - stepStart)
                        .count();
    }
  }
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - begin)
          .count();
  Metrics end = metrics();
  double steadySeconds = seconds - firstStepMs / 1e3;
  double rate = steps > 1 ? (steps - 1) / steadySeconds : 0.0;
  // Two decimals below 10 steps/s (a sanitized build on the stand-in
  // driver), so that a slow rate never reads as 0.
  std::printf("throughput: %.*f steps/s, %.0f tokens/s after the first step "
              "(%.1f ms, compile included)\n",
              rate < 10 ? 2 : 0, rate, rate * batch * seqLength, firstStepMs);
  printMetricsLine(start, end);
  if (dataParallel)
    printCollectivesLine(afterFirst, distributed::stats(), steps - 1,
                         steadySeconds);
  if (!saveWeights.empty() && rank == 0) {
    std::vector<Tensor> weights = model.all();
    for (size_t i = 0; i < weights.size(); ++i) {
      llvm::Expected<HostTensor> value = weights[i].toHost();
      if (!value)
        return fail(llvm::toString(value.takeError()));
      if (llvm::Error e =
              writeNpy(saveWeights + "/" + Model::names[i] + ".npy", *value))
        return fail(llvm::toString(std::move(e)));
    }
  }
  // It falls slowly at first, then fast: to below half by step 200.
  bool fell = steps < 20 || (lastLoss < firstLoss &&
                             (steps < 200 || lastLoss < 0.5 * firstLoss));
  if (!fell)
    return fail("the loss did not fall as it should (from " +
                std::to_string(firstLoss) + " to " + std::to_string(lastLoss) +
                ")");
  return 0;
}
