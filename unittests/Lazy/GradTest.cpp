//===- GradTest.cpp - lazy gradients ------------------------------------===//
//
// kiln::grad records a kiln.vjp; materializing compiles it with the
// autodiff pass. Checks gradients against ones derived by hand: of a loss,
// with respect to computed tensors (paths through one input to another
// count), of an input nothing reads, of gradients (second derivatives), and
// the errors.
//
//===----------------------------------------------------------------------===//

#include "Compiler/Frontend/TraceCache.h"
#include "LazyTestHelpers.h"

#include "gtest/gtest.h"

#include <cmath>
#include <memory>

using namespace kiln;

namespace {

void expectNear(const std::vector<double> &got,
                const std::vector<double> &want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_NEAR(got[i], want[i], 1e-5 * std::max(1.0, std::abs(want[i])))
        << "element " << i;
}

const std::vector<float> xs = {0.5f, -1.0f, 2.0f, 0.25f};

// loss = sum(tanh(x * w)): dloss/dx = w (1 - tanh^2), dloss/dw likewise.
TEST(GradTest, OfALoss) {
  std::vector<float> ws = {0.3f, 0.7f, -0.2f, 1.5f};
  Tensor x = input({4}, xs), w = input({4}, ws);
  Tensor loss = sum(tanh(x * w), {0});
  std::vector<Tensor> g = grad({loss}, {x, w});
  ASSERT_EQ(g.size(), 2u);
  ASSERT_TRUE(g[0].ok()) << g[0].getError();
  EXPECT_EQ(g[0].getShape(), x.getShape());
  ASSERT_FALSE(static_cast<bool>(sync({g[0], g[1], loss})));
  std::vector<double> dx, dw;
  double want = 0;
  for (int i = 0; i < 4; ++i) {
    double t = std::tanh(double(xs[i]) * ws[i]);
    want += t;
    dx.push_back(ws[i] * (1 - t * t));
    dw.push_back(xs[i] * (1 - t * t));
  }
  expectNear(values<double>(g[0]), dx);
  expectNear(values<double>(g[1]), dw);
  expectNear(values<double>(loss), {want});
}

// kiln::checkpoint: the same loss and gradients as without it, the tanh
// recomputed by the derivative (a different program, not a cache hit).
TEST(GradTest, OfACheckpointedSegment) {
  std::vector<float> ws = {0.3f, 0.7f, -0.2f, 1.5f};
  Tensor x = input({4}, xs), w = input({4}, ws);
  auto segment = [](llvm::ArrayRef<Tensor> in) {
    return std::vector<Tensor>{tanh(in[0] * in[1])};
  };
  std::vector<Tensor> inside = checkpoint(segment, {x, w});
  ASSERT_EQ(inside.size(), 1u);
  Tensor loss = sum(inside[0] * inside[0], {0});
  std::vector<Tensor> g = grad({loss}, {x, w});
  Tensor plainLoss = sum(tanh(x * w) * tanh(x * w), {0});
  std::vector<Tensor> plain = grad({plainLoss}, {x, w});
  int64_t compiles = metrics().compiles;
  ASSERT_FALSE(static_cast<bool>(sync({g[0], g[1], loss})));
  ASSERT_FALSE(static_cast<bool>(sync({plain[0], plain[1], plainLoss})));
  EXPECT_EQ(metrics().compiles, compiles + 2);
  expectNear(values<double>(g[0]), values<double>(plain[0]));
  expectNear(values<double>(g[1]), values<double>(plain[1]));
  expectNear(values<double>(loss), values<double>(plainLoss));
  // d/dx sum(tanh(xw)^2) = 2 t (1 - t^2) w.
  std::vector<double> dx;
  for (int i = 0; i < 4; ++i) {
    double t = std::tanh(double(xs[i]) * ws[i]);
    dx.push_back(2 * t * (1 - t * t) * ws[i]);
  }
  expectNear(values<double>(g[0]), dx);
}

// loss = sum(gelu(x) + gelu(x, tanh form) + erf(x)), against the
// derivatives taken by hand: Phi(x) + x phi(x), the tanh form's
// 0.5 (1 + t) + 0.5 x (1 - t^2) s (1 + 3 c x^2), and 2/sqrt(pi) exp(-x^2).
TEST(GradTest, GeluAndErf) {
  Tensor x = input({4}, xs);
  Tensor loss = sum(gelu(x) + gelu(x, /*approximate=*/true) + erf(x), {0});
  std::vector<Tensor> g = grad({loss}, {x});
  ASSERT_TRUE(g[0].ok()) << g[0].getError();
  std::vector<double> want;
  const double s = std::sqrt(2.0 / M_PI), c = 0.044715;
  for (float f : xs) {
    double v = f;
    double exact = 0.5 * (1 + std::erf(v / std::sqrt(2.0))) +
                   v * std::exp(-0.5 * v * v) / std::sqrt(2 * M_PI);
    double t = std::tanh(s * (v + c * v * v * v));
    double tanhForm =
        0.5 * (1 + t) + 0.5 * v * (1 - t * t) * s * (1 + 3 * c * v * v);
    double erfPrime = 2 / std::sqrt(M_PI) * std::exp(-v * v);
    want.push_back(exact + tanhForm + erfPrime);
  }
  expectNear(values<double>(g[0]), want);
  // And the second derivative of gelu: d/dx (Phi(x) + x phi(x)) =
  // phi(x) (2 - x^2).
  Tensor first = grad({sum(gelu(x), {0})}, {x})[0];
  Tensor second = grad({sum(first, {0})}, {x})[0];
  std::vector<double> want2;
  for (float f : xs) {
    double v = f;
    want2.push_back(std::exp(-0.5 * v * v) / std::sqrt(2 * M_PI) * (2 - v * v));
  }
  expectNear(values<double>(second), want2);
}

// y = 2x, z = sum(y * y): dz/dy = 2y = 4x, and dz/dx = 8x counts the path
// through y; an input nothing reads has a zero gradient; a repeated input
// gets the same gradient twice.
TEST(GradTest, ComputedAndUnusedInputs) {
  Tensor x = input({4}, xs), unused = input({2}, {1.0f, 2.0f});
  Tensor y = x * 2.0;
  Tensor z = sum(y * y, {0});
  std::vector<Tensor> g = grad({z}, {y, x, unused, x});
  ASSERT_EQ(g.size(), 4u);
  std::vector<double> dy, dx;
  for (float v : xs) {
    dy.push_back(4.0 * v);
    dx.push_back(8.0 * v);
  }
  expectNear(values<double>(g[0]), dy);
  expectNear(values<double>(g[1]), dx);
  expectNear(values<double>(g[2]), {0.0, 0.0});
  expectNear(values<double>(g[3]), dx);
}

// Explicit output gradients weight each output.
TEST(GradTest, WeightedOutputs) {
  Tensor x = input({4}, xs);
  Tensor a = exp(x), b = x * x;
  Tensor ga = input({4}, {1.0f, 0.0f, 2.0f, -1.0f});
  Tensor gb = input({4}, {0.5f, 0.5f, 0.5f, 0.5f});
  std::vector<Tensor> g = grad({a, b}, {x}, {ga, gb});
  std::vector<double> want;
  std::vector<float> weights = {1.0f, 0.0f, 2.0f, -1.0f};
  for (int i = 0; i < 4; ++i)
    want.push_back(weights[i] * std::exp(double(xs[i])) + 0.5 * 2 * xs[i]);
  expectNear(values<double>(g[0]), want);
}

// d/dx sum(d/dx sum(x^3)) = d/dx sum(3x^2) = 6x, and the third derivative
// is 6; both are recorded lazily and compile through nested kiln.vjp.
TEST(GradTest, GradientsOfGradients) {
  Tensor x = input({4}, xs);
  Tensor first = grad({sum(x * x * x, {0})}, {x})[0];
  Tensor second = grad({sum(first, {0})}, {x})[0];
  Tensor third = grad({sum(second, {0})}, {x})[0];
  ASSERT_TRUE(third.ok()) << third.getError();
  std::vector<double> d1, d2;
  for (float v : xs) {
    d1.push_back(3.0 * v * v);
    d2.push_back(6.0 * v);
  }
  expectNear(values<double>(second), d2);
  expectNear(values<double>(third), {6, 6, 6, 6});
  // Computed after `second` was: `first` still differentiates from x.
  expectNear(values<double>(first), d1);
}

// A materialized output keeps its gradient: the callee was recorded with
// the forward as it was then.
TEST(GradTest, AfterTheOutputIsComputed) {
  Tensor x = input({4}, xs);
  Tensor loss = sum(x * x, {0});
  std::vector<Tensor> g = grad({loss}, {x});
  ASSERT_FALSE(static_cast<bool>(sync({loss})));
  std::vector<double> want;
  for (float v : xs)
    want.push_back(2.0 * v);
  expectNear(values<double>(g[0]), want);
  // A gradient taken now of a computed loss is zero: the loss is data.
  expectNear(values<double>(grad({loss}, {x})[0]), {0, 0, 0, 0});
}

// A training step's structure is one program: new data hits the cache.
TEST(GradTest, NewDataHitsTheCache) {
  auto step = [](float scale) {
    Tensor w = input({4}, {scale, 1.0f, 2.0f, 3.0f});
    Tensor x = input({4}, xs);
    Tensor loss = sum(sigmoid(x * w), {0});
    Tensor updated = w - 0.1 * grad({loss}, {w})[0];
    return values<double>(updated);
  };
  step(1.0f);
  TraceCacheStats before = TraceCache::global().getStats();
  std::vector<double> got = step(0.5f);
  TraceCacheStats after = TraceCache::global().getStats();
  EXPECT_EQ(after.compiles, before.compiles);
  EXPECT_EQ(after.hits, before.hits + 1);
  double s = 1.0 / (1.0 + std::exp(-0.5 * 0.5));
  EXPECT_NEAR(got[0], 0.5 - 0.1 * 0.5 * s * (1 - s), 1e-6);
}

// kiln::grad records a gradient lazily: its callee is the forward as
// recorded, even when values arrive in that forward before the gradient
// is computed (here h, computed on its own first). A gradient taken after
// h has a value treats it as data.
TEST(GradTest, ValuesThatArriveInTheForwardLater) {
  std::vector<float> ws = {0.3f, 0.7f, -0.2f, 1.5f};
  Tensor x = input({4}, xs), w = input({4}, ws);
  Tensor h = tanh(x * w);
  Tensor loss = sum(h * h, {0});
  Tensor dw = grad({loss}, {w})[0];
  ASSERT_FALSE(static_cast<bool>(sync({h})));
  ASSERT_FALSE(static_cast<bool>(sync({loss})));
  Tensor unrelated = exp(x);
  ASSERT_FALSE(static_cast<bool>(sync({unrelated})));
  // dloss/dw = 2 h (1 - h^2) x.
  std::vector<double> want;
  for (int i = 0; i < 4; ++i) {
    double t = std::tanh(double(xs[i]) * ws[i]);
    want.push_back(2 * t * (1 - t * t) * xs[i]);
  }
  expectNear(values<double>(dw), want);
  expectNear(values<double>(grad({sum(h * h, {0})}, {w})[0]), {0, 0, 0, 0});
}

// A program computes equal nodes once (hash-consing), but a lazy gradient
// is of the very tensors it names: x and z below compute the same exp(a),
// and the loss reads them differently.
TEST(GradTest, OfOneOfTwoEqualTensors) {
  Tensor a = input({4}, xs), w = input({4}, {0.3f, 0.7f, -0.2f, 1.5f});
  Tensor x = exp(a), z = exp(a);
  Tensor loss = sum(z * z + x * 3.0, {0});
  std::vector<Tensor> g = grad({loss}, {x, z});
  ASSERT_FALSE(static_cast<bool>(sync({g[0], g[1], loss})));
  std::vector<double> dz;
  for (float v : xs)
    dz.push_back(2 * std::exp(double(v)));
  expectNear(values<double>(g[0]), {3, 3, 3, 3});
  expectNear(values<double>(g[1]), dz);
  // One input that only an equal tensor's reader (not the loss) reaches.
  Tensor x1 = exp(a), x2 = exp(a);
  Tensor other = x2 * 5.0;
  Tensor dx1 = grad({sum(x1 * w, {0})}, {x1})[0];
  ASSERT_FALSE(static_cast<bool>(sync({other, dx1})));
  expectNear(values<double>(dx1), {0.3, 0.7, -0.2, 1.5});
}

// Two gradients of one loss recorded before and after a value arrived in
// its forward differ: to the second, h is data.
TEST(GradTest, OfOneLossBeforeAndAfterAValue) {
  std::vector<float> ws = {0.3f, 0.7f, -0.2f, 1.5f};
  Tensor x = input({4}, xs), w = input({4}, ws);
  Tensor h = w * x;
  Tensor loss = sum(tanh(h), {0});
  Tensor before = grad({loss}, {w})[0];
  ASSERT_FALSE(static_cast<bool>(sync({h})));
  Tensor after = grad({loss}, {w})[0];
  ASSERT_FALSE(static_cast<bool>(sync({after, before})));
  std::vector<double> want;
  for (int i = 0; i < 4; ++i) {
    double t = std::tanh(double(ws[i]) * xs[i]);
    want.push_back(xs[i] * (1 - t * t));
  }
  expectNear(values<double>(before), want);
  expectNear(values<double>(after), {0, 0, 0, 0});
}

// A gradient held unread while training goes on stays the gradient of
// its own step; the steps after it let go of their graphs (their weights'
// nodes are freed) rather than keep them for it.
TEST(GradTest, AHeldGradientKeepsNoLaterStep) {
  std::vector<float> ws = {0.3f, 0.7f, -0.2f, 1.5f};
  Tensor x = input({4}, xs), w = input({4}, ws);
  auto lossOf = [&](const Tensor &w) { return sum(sigmoid(x * w), {0}); };
  Tensor held = grad({lossOf(w)}, {w})[0];
  std::vector<std::weak_ptr<const TraceNode>> weights;
  for (int step = 0; step < 6; ++step) {
    Tensor loss = lossOf(w);
    Tensor next = w - 0.1 * grad({loss}, {w})[0];
    ASSERT_FALSE(static_cast<bool>(sync({next, loss})));
    w = next;
    weights.push_back(w.getNode());
  }
  // Step 2's weights: only the weights of step 3 held them.
  EXPECT_TRUE(weights[1].expired());
  EXPECT_FALSE(weights[5].expired());
  std::vector<double> want;
  for (int i = 0; i < 4; ++i) {
    double s = 1 / (1 + std::exp(-double(xs[i]) * ws[i]));
    want.push_back(s * (1 - s) * xs[i]);
  }
  expectNear(values<double>(held), want);
}

// Values that arrive in a held gradient's forward are kept for it only up
// to a bound: past it the gradient takes its callee (through the values
// kept so far) and lets them go. Its result is the same.
TEST(GradTest, ValuesKeptForAGradientAreBounded) {
  constexpr int length = 1100; // above the bound (1024 values)
  Tensor x = input({4}, xs);
  std::vector<Tensor> chain{x};
  for (int i = 0; i < length; ++i)
    chain.push_back(chain.back() * 0.999 + 0.001);
  Tensor dx = grad({sum(chain.back(), {0})}, {x})[0];
  for (int i = 1; i <= length; ++i)
    ASSERT_FALSE(static_cast<bool>(sync({chain[i]})));
  // Settled by the bound, before anything asked for it (a gradient
  // recorded lazily: not under KILN_LAZY_GRAD=0).
  llvm::SmallVector<NodeRef, 1> vjp;
  ASSERT_FALSE(dx.getNode()->isLeafOrGetOperands(vjp));
  if (vjp[0]->isLazyVjp())
    EXPECT_NE(vjp[0]->getSettledCall(), nullptr);
  double scale = std::pow(0.999, length);
  expectNear(values<double>(dx), {scale, scale, scale, scale});
}

TEST(GradTest, Errors) {
  Tensor x = input({4}, xs);
  Tensor y = x * x;
  auto error = [](const std::vector<Tensor> &g) {
    return g.empty() ? std::string("(no results)") : g.front().getError();
  };
  EXPECT_EQ(error(grad({y}, {x})),
            "kiln.vjp: output gradients may be left out only for outputs of "
            "one element, not tensor<4xf32>");
  EXPECT_EQ(error(grad({y}, {x}, {input({3}, {1, 1, 1})})),
            "kiln.vjp: the gradient of output 0 is tensor<3xf32>, not "
            "tensor<4xf32>");
  EXPECT_EQ(error(grad({gt(x, y)}, {x}, {gt(x, y)})),
            "kiln.vjp: output 0 is tensor<4xi1>, which has no gradient");
  EXPECT_EQ(error(grad({y}, {}, {x})),
            "kiln.vjp: needs at least one output and one input");
  EXPECT_EQ(error(grad({y}, {x}, {x, x})),
            "kiln.vjp: 1 outputs but 2 output gradients");
  // The inner gradient recomputes y from x, out of the outer one's reach.
  Tensor twice = x * 2.0;
  Tensor inner = grad({sum(twice * twice, {0})}, {x})[0];
  EXPECT_EQ(error(grad({sum(inner, {0})}, {twice})),
            "kiln.vjp: a gradient of a gradient is taken with respect to a "
            "computed tensor that the inner gradient recomputes; take it "
            "with respect to leaves (data or parameters)");
  // Also when the inner gradient's program folded that tensor into an equal
  // one it computes (hash-consing).
  Tensor first = tanh(x), second = tanh(x);
  Tensor folded = grad({sum(second + first, {0})}, {x})[0];
  EXPECT_NE(
      error(grad({sum(folded, {0})}, {first}))
          .find("a gradient of a gradient is taken with respect to a computed "
                "tensor"),
      std::string::npos);
  std::vector<Tensor> bad = grad({y}, {x, Tensor()}, {x});
  ASSERT_EQ(bad.size(), 2u);
  EXPECT_EQ(bad[1].getError(), "an empty tensor");
}

} // namespace
