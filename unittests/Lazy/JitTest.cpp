//===- JitTest.cpp - captured steps replayed without recording -----------===//

#include "kiln/Lazy/Jit.h"
#include "LazyTestHelpers.h"

#include <random>

using namespace kiln;

namespace {

Tensor randomInput(std::mt19937 &rng, std::vector<int64_t> shape) {
  HostTensor data(DType::F32, shape);
  std::uniform_real_distribution<double> dist(-1, 1);
  for (int64_t i = 0; i < data.getNumElements(); ++i)
    data.setFromDouble(i, dist(rng));
  return Tensor::fromHost(std::move(data));
}

/// A two-layer MLP's SGD step: (w1, w2, x, y) -> (w1', w2', loss).
std::vector<Tensor> mlpStep(llvm::ArrayRef<Tensor> in) {
  const Tensor &w1 = in[0], &w2 = in[1], &x = in[2], &y = in[3];
  Tensor h = tanh(matmul(x, w1));
  Tensor diff = matmul(h, w2) - y;
  Tensor loss = mean(diff * diff, {0, 1});
  std::vector<Tensor> g = grad({loss}, {w1, w2});
  return {w1 - 0.1 * g[0], w2 - 0.1 * g[1], loss};
}

std::vector<float> valuesOf(const Tensor &t) { return values(t); }

TEST(JitTest, ReplaysEqualRecordedSteps) {
  std::mt19937 rng(7);
  Tensor w1 = randomInput(rng, {6, 5}), w2 = randomInput(rng, {5, 3});
  std::vector<Tensor> xs, ys;
  for (int s = 0; s < 100; ++s) {
    xs.push_back(randomInput(rng, {4, 6}));
    ys.push_back(randomInput(rng, {4, 3}));
  }
  // Recorded: the plain lazy step.
  Tensor r1 = w1, r2 = w2;
  std::vector<float> recordedLosses;
  for (int s = 0; s < 100; ++s) {
    std::vector<Tensor> out = mlpStep({r1, r2, xs[s], ys[s]});
    ASSERT_FALSE(sync(out));
    r1 = out[0], r2 = out[1];
    recordedLosses.push_back(valuesOf(out[2])[0]);
  }
  // Replayed.
  Jit step(mlpStep);
  Tensor j1 = w1, j2 = w2;
  for (int s = 0; s < 100; ++s) {
    Metrics before = metrics();
    llvm::Expected<std::vector<Tensor>> out = step({j1, j2, xs[s], ys[s]});
    ASSERT_TRUE(static_cast<bool>(out)) << llvm::toString(out.takeError());
    Metrics after = metrics();
    if (s >= 2) {
      // Nothing recorded, nothing looked up: one run of the captured
      // program.
      EXPECT_EQ(after.tracedOps, before.tracedOps) << "step " << s;
      EXPECT_EQ(after.cacheHits + after.cacheMisses,
                before.cacheHits + before.cacheMisses);
      EXPECT_EQ(after.replays, before.replays + 1);
      EXPECT_EQ(after.runs, before.runs + 1);
    }
    j1 = (*out)[0], j2 = (*out)[1];
    EXPECT_EQ(valuesOf((*out)[2])[0], recordedLosses[s]) << "step " << s;
  }
  EXPECT_EQ(step.getNumRecordedCalls(), 2);
  EXPECT_EQ(step.getNumReplays(), 98);
  EXPECT_EQ(valuesOf(j1), valuesOf(r1));
  EXPECT_EQ(valuesOf(j2), valuesOf(r2));
}

TEST(JitTest, NewShapesRecordAgainAndKeepBothSteps) {
  std::mt19937 rng(8);
  Tensor w1 = randomInput(rng, {6, 5}), w2 = randomInput(rng, {5, 3});
  Jit step(mlpStep);
  for (int64_t batch : {4, 4, 4, 7, 7, 7, 4, 7}) {
    llvm::Expected<std::vector<Tensor>> out = step(
        {w1, w2, randomInput(rng, {batch, 6}), randomInput(rng, {batch, 3})});
    ASSERT_TRUE(static_cast<bool>(out)) << llvm::toString(out.takeError());
    EXPECT_EQ((*out)[0].getShape(), w1.getShape());
  }
  // Two recorded calls per batch size; the rest replayed.
  EXPECT_EQ(step.getNumRecordedCalls(), 4);
  EXPECT_EQ(step.getNumReplays(), 4);
}

TEST(JitTest, ChangingPythonValuesNeverReplay) {
  // A number that differs per call is baked data: two captures never
  // agree, so every call records (and stays right).
  int call = 0;
  Jit step([&](llvm::ArrayRef<Tensor> in) -> std::vector<Tensor> {
    return {in[0] * static_cast<double>(++call)};
  });
  Tensor x = input({2}, {1, 2});
  for (int i = 1; i <= 4; ++i) {
    llvm::Expected<std::vector<Tensor>> out = step({x});
    ASSERT_TRUE(static_cast<bool>(out));
    EXPECT_EQ(valuesOf((*out)[0]), (std::vector<float>{1.0f * i, 2.0f * i}));
  }
  EXPECT_EQ(step.getNumReplays(), 0);
}

TEST(JitTest, ProgramsInsideTheStepAreReplayedInOrder) {
  // The step reads a value half way (a second program whose input is the
  // first's result); a replay runs both.
  Jit step([](llvm::ArrayRef<Tensor> in) -> std::vector<Tensor> {
    Tensor a = exp(in[0]);
    EXPECT_FALSE(sync({a}));
    return {a * in[1], a};
  });
  for (int i = 0; i < 5; ++i) {
    float v = static_cast<float>(i);
    llvm::Expected<std::vector<Tensor>> out =
        step({input({1}, {v}), input({1}, {2})});
    ASSERT_TRUE(static_cast<bool>(out));
    EXPECT_FLOAT_EQ(valuesOf((*out)[0])[0], 2 * std::exp(v));
    EXPECT_FLOAT_EQ(valuesOf((*out)[1])[0], std::exp(v));
  }
  EXPECT_EQ(step.getNumReplays(), 3);
}

TEST(JitTest, AliasedInputsAreReplayedOnlyWhileAliased) {
  Jit step([](llvm::ArrayRef<Tensor> in) -> std::vector<Tensor> {
    return {in[0] - in[1]};
  });
  Tensor a = input({2}, {5, 7}), b = input({2}, {1, 1});
  for (int i = 0; i < 3; ++i)
    ASSERT_EQ(valuesOf((*step({a, a}))[0]), (std::vector<float>{0, 0}));
  EXPECT_EQ(step.getNumReplays(), 1);
  // Captured with one node for both: a different pair must not reuse it.
  llvm::Expected<std::vector<Tensor>> out = step({a, b});
  ASSERT_TRUE(static_cast<bool>(out));
  EXPECT_EQ(valuesOf((*out)[0]), (std::vector<float>{4, 6}));
}

TEST(JitTest, ReplayChecksInputTypes) {
  Jit step([](llvm::ArrayRef<Tensor> in) -> std::vector<Tensor> {
    return {in[0] + 1.0};
  });
  Tensor x = input({2}, {1, 2});
  for (int i = 0; i < 3; ++i)
    ASSERT_TRUE(static_cast<bool>(step({x})));
  StepRecorder recorder;
  Tensor y = x * 2.0;
  llvm::Expected<std::shared_ptr<CapturedStep>> captured =
      recorder.finish({x.getNode()}, {y});
  ASSERT_TRUE(static_cast<bool>(captured));
  auto replayed = (*captured)->replay({input({3}, {1, 2, 3}).getNode()});
  ASSERT_FALSE(static_cast<bool>(replayed));
  EXPECT_EQ(llvm::toString(replayed.takeError()),
            "replay: input 0 is tensor<3xf32>, but the step was captured "
            "with tensor<2xf32>");
}

TEST(JitTest, ReplayRecyclesBuffersNothingElseHolds) {
  // y = x * 2, replayed with a node offered for output 0: one whose value
  // nothing else holds takes the output in its own buffer; one whose value
  // is held elsewhere (or of another shape) is left alone.
  Tensor x = input({2}, {1, 2});
  StepRecorder recorder;
  Tensor y = x * 2.0;
  llvm::Expected<std::shared_ptr<CapturedStep>> captured =
      recorder.finish({x.getNode()}, {y});
  ASSERT_TRUE(static_cast<bool>(captured));
  auto replayWith = [&](const Tensor &old) {
    Tensor next = input({2}, {3, 4});
    const TraceNode *recycle[] = {old.getNode().get()};
    CapturedStep::ReplayOptions options;
    options.recycle = recycle;
    return (*captured)->replayNodes({next.getNode()}, options);
  };

  Tensor old = input({2}, {0, 0});
  const HostTensor *buffer = old.getNode()->peekHostData();
  auto recycled = replayWith(old);
  ASSERT_TRUE(static_cast<bool>(recycled))
      << llvm::toString(recycled.takeError());
  ASSERT_TRUE(recycled->has_value());
  EXPECT_EQ((*recycled)->fromRecycled[0], 0);
  EXPECT_EQ((*recycled)->nodes[0], nullptr);
  EXPECT_EQ(old.getNode()->peekHostData(), buffer);
  EXPECT_EQ(valuesOf(old), (std::vector<float>{6, 8}));

  Tensor shared = input({2}, {0, 0});
  std::shared_ptr<const HostTensor> elsewhere = shared.getNode()->getData();
  Tensor otherShape = input({3}, {0, 0, 0});
  for (const Tensor &kept : {shared, otherShape}) {
    auto replayed = replayWith(kept);
    ASSERT_TRUE(static_cast<bool>(replayed));
    ASSERT_TRUE(replayed->has_value());
    EXPECT_EQ((*replayed)->fromRecycled[0], -1);
    ASSERT_NE((*replayed)->nodes[0], nullptr);
    EXPECT_EQ(valuesOf(Tensor::make((*replayed)->nodes[0])),
              (std::vector<float>{6, 8}));
  }
  EXPECT_EQ(valuesOf(shared), (std::vector<float>{0, 0}));
  EXPECT_EQ(valuesOf(otherShape), (std::vector<float>{0, 0, 0}));
}

/// A replay of `step` that donates input 0 to output 0, with `binding`
/// kept: its outputs (none, with a test failure, if it failed or would
/// record again) and how many buffers it donated.
struct BoundReplay {
  std::optional<CapturedStep::ReplayedOutputs> outputs;
  int64_t donated = 0;
};
BoundReplay replayDonatingInput0(const CapturedStep &step,
                                 llvm::ArrayRef<NodeRef> inputs,
                                 CapturedStep::Binding &binding) {
  std::vector<int32_t> replacedBy(inputs.size(), -1);
  replacedBy[0] = 0;
  CapturedStep::ReplayOptions options;
  options.replacedBy = replacedBy;
  options.binding = &binding;
  Metrics before = metrics();
  auto replayed = step.replayNodes(inputs, options);
  if (!replayed) {
    ADD_FAILURE() << llvm::toString(replayed.takeError());
    return {};
  }
  if (!*replayed) {
    ADD_FAILURE() << "the replay would record again";
    return {};
  }
  return {std::move(*replayed),
          metrics().donatedBuffers - before.donatedBuffers};
}

TEST(JitTest, BindingKeepsStateAndRebindsNewInputs) {
  // w' = w - 0.5 * x, w donated; replayed with a binding kept from call to
  // call: a new x each call is bound, w's node (which holds w') is kept.
  Tensor w = input({3}, {1, 2, 3}), x = input({3}, {0, 0, 0});
  StepRecorder recorder;
  Tensor next = w - 0.5 * x;
  llvm::Expected<std::shared_ptr<CapturedStep>> captured =
      recorder.finish({w.getNode(), x.getNode()}, {next});
  ASSERT_TRUE(static_cast<bool>(captured));
  CapturedStep::Binding binding;
  std::vector<float> expected = {1, 2, 3};
  NodeRef state = input({3}, {1, 2, 3}).getNode();
  std::vector<NodeRef> inputs(2);
  for (int call = 0; call < 6; ++call) {
    // Holding a second reference to w's value (call 3) keeps it from
    // being overwritten; the call after may overwrite it again.
    std::shared_ptr<const HostTensor> held;
    if (call == 3)
      held = state->getData();
    float step = static_cast<float>(call + 1);
    inputs = {state, input({3}, {step, step, step}).getNode()};
    BoundReplay replayed = replayDonatingInput0(**captured, inputs, binding);
    ASSERT_TRUE(replayed.outputs);
    int64_t donated = replayed.donated;
    for (float &v : expected)
      v -= 0.5f * step;
    if (call == 3) {
      EXPECT_EQ(donated, 0);
      EXPECT_EQ(replayed.outputs->fromInput[0], -1);
      state = replayed.outputs->nodes[0];
      EXPECT_EQ(held->getNumElements(), 3);
      EXPECT_EQ(valuesOf(Tensor::fromHost(held)),
                (std::vector<float>{-2, -1, 0}));
    } else {
      EXPECT_EQ(donated, 1) << "call " << call;
      EXPECT_EQ(replayed.outputs->fromInput[0], 0);
    }
    EXPECT_EQ(valuesOf(Tensor::make(state)), expected) << "call " << call;
  }
  // A new input of another type is an error, however it is bound.
  inputs = {state, input({2}, {1, 2}).getNode()};
  CapturedStep::ReplayOptions options;
  options.binding = &binding;
  auto replayed = (*captured)->replayNodes(inputs, options);
  ASSERT_FALSE(static_cast<bool>(replayed));
  EXPECT_EQ(llvm::toString(replayed.takeError()),
            "replay: input 1 is tensor<2xf32>, but the step was captured "
            "with tensor<3xf32>");
}

// A kept binding remembers which outputs a program writes straight into
// their buffers. An input that changes to a value sharing the buffer of
// state the step overwrites (here x wraps w's own memory) must not be
// read after that buffer is written: the replay works it out again and
// goes through a temporary, and back to writing in place once the input
// no longer shares it.
TEST(JitTest, BindingNoticesANewInputInAStateBuffer) {
  // w' = w - x[n - 1 - i], w donated: in place, the second half of x is
  // read after the first half of w' was written.
  constexpr int64_t n = 64;
  Tensor w = input({n}, std::vector<float>(n, 0)),
         x = input({n}, std::vector<float>(n, 0));
  HostTensor reversed(DType::I64, {n});
  for (int64_t i = 0; i < n; ++i)
    reversed.setFromDouble(i, static_cast<double>(n - 1 - i));
  Tensor order = Tensor::fromHost(std::move(reversed));
  StepRecorder recorder;
  Tensor next = w - take(x, order, 0);
  llvm::Expected<std::shared_ptr<CapturedStep>> captured =
      recorder.finish({w.getNode(), x.getNode()}, {next});
  ASSERT_TRUE(static_cast<bool>(captured))
      << llvm::toString(captured.takeError());
  CapturedStep::Binding binding;
  std::vector<float> expected(n);
  for (int64_t i = 0; i < n; ++i)
    expected[i] = static_cast<float>(i * 3 % 17);
  NodeRef state = input({n}, expected).getNode();
  // Held from one call to the next, as a binding's caller must.
  std::vector<NodeRef> inputs(2);
  for (int call = 0; call < 6; ++call) {
    std::vector<float> xs(n);
    for (int64_t i = 0; i < n; ++i)
      xs[i] = static_cast<float>((call * 7 + i) % 13);
    // Call 3: x is w's own buffer (borrowed, so w's value is still held
    // by its node alone, and donated).
    bool aliased = call == 3;
    std::shared_ptr<const HostTensor> current = state->getData();
    Tensor newX = aliased ? Tensor::wrap(current->getData(), DType::F32, {n})
                          : input({n}, xs);
    if (aliased)
      xs = expected;
    current.reset();
    std::vector<float> want(n);
    for (int64_t i = 0; i < n; ++i)
      want[i] = expected[i] - xs[n - 1 - i];
    inputs = {state, newX.getNode()};
    BoundReplay replayed = replayDonatingInput0(**captured, inputs, binding);
    ASSERT_TRUE(replayed.outputs);
    EXPECT_EQ(replayed.donated, 1) << "call " << call;
    ASSERT_EQ(replayed.outputs->fromInput[0], 0);
    expected = want;
    EXPECT_EQ(valuesOf(Tensor::make(state)), expected) << "call " << call;
  }
}

} // namespace
