//===- LazyReferenceTest.cpp - every lazy op against the reference ------===//
//
// Records each op of the lazy API on random data, imports the recorded
// program and evaluates it with the reference interpreter, then
// materializes the tensor (compiled, run) and compares the two.
//
//===----------------------------------------------------------------------===//

#include "Compiler/Frontend/TraceImporter.h"
#include "KilnTestContext.h"
#include "Reference/Interpreter.h"
#include "kiln/Lazy/Tensor.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <cmath>
#include <functional>
#include <random>

using namespace kiln;

namespace {

class LazyReferenceTest : public KilnTestContext {
protected:
  /// Random data in [lo, hi).
  Tensor random(std::vector<int64_t> shape, double lo = -1, double hi = 1) {
    HostTensor data(DType::F32, shape);
    std::uniform_real_distribution<double> dist(lo, hi);
    for (int64_t i = 0; i < data.getNumElements(); ++i)
      data.setFromDouble(i, dist(rng));
    return Tensor::fromHost(std::move(data));
  }

  /// Checks `t` (not yet computed) against the reference interpreter.
  void check(const std::string &name, const Tensor &t) {
    SCOPED_TRACE(name);
    ASSERT_TRUE(t.ok()) << t.getError();
    TraceProgram program = TraceProgram::extract({t.getNode()});
    std::vector<HostTensor> inputs;
    for (int32_t p : program.parameters)
      inputs.push_back(*program.entries[p].node->getData());
    module = importTrace(context, program);
    auto func = module->lookupSymbol<mlir::func::FuncOp>("main");
    auto expected = reference::evaluate(func, inputs);
    ASSERT_TRUE(static_cast<bool>(expected))
        << llvm::toString(expected.takeError());
    auto got = t.toHost();
    ASSERT_TRUE(static_cast<bool>(got)) << llvm::toString(got.takeError());
    const HostTensor &want = expected->front();
    ASSERT_EQ(got->getShape(), want.getShape());
    ASSERT_EQ(got->getDType(), want.getDType());
    for (int64_t i = 0; i < want.getNumElements(); ++i) {
      double a = got->getAsDouble(i), b = want.getAsDouble(i);
      if (std::isnan(b)) {
        EXPECT_TRUE(std::isnan(a)) << "element " << i;
        continue;
      }
      EXPECT_NEAR(a, b, 2e-6 * std::max(1.0, std::abs(b))) << "element " << i;
    }
  }

  std::mt19937 rng{2026};
};

TEST_F(LazyReferenceTest, EveryOp) {
  Tensor a = random({3, 4}), b = random({3, 4}), row = random({4});
  Tensor positive = random({3, 4}, 0.1, 2);
  check("add", a + b);
  check("sub broadcast", a - row);
  check("mul scalar", a * 1.5);
  check("div", a / positive);
  check("rsub scalar", 2.0 - a);
  check("neg", -a);
  check("maximum", maximum(a, b));
  check("minimum", minimum(a, row));
  check("exp", exp(a));
  check("log", log(positive));
  check("tanh", tanh(a));
  check("sigmoid", sigmoid(a));
  check("relu", relu(a));
  check("sqrt", sqrt(positive));
  check("rsqrt", rsqrt(positive));
  check("abs", abs(a));
  check("sin", sin(a));
  check("cos", cos(a));
  check("reciprocal", reciprocal(positive));
  check("erf", erf(a * 2.0));
  check("gelu", gelu(a * 3.0));
  check("gelu tanh", gelu(a * 3.0, /*approximate=*/true));
  check("pow", pow(positive, b));
  check("gt", gt(a, b));
  check("lt", lt(a, row));
  check("eq", eq(a, a));
  check("where", where(gt(a, b), a, b));
  check("convert", convert(a, DType::F64));
  check("reshape", reshape(a, {2, 6}));
  check("transpose", transpose(a, {1, 0}));
  check("narrow", narrow(a, 1, 1, 2));
  check("slice", slice(a, {1, 1}, {2, 3}));
  check("chunk", chunk(a, 2, 1)[1]);
  check("cat", cat({a, narrow(b, 0, 0, 1)}, 0));
  check("broadcastTo", broadcastTo(row, {2, 3, 4}));
  check("sum", sum(a, {0}));
  check("amax", amax(a, {1}));
  check("matmul", matmul(a, random({4, 5})));
  check("matmul transposed", matmul(a, random({5, 4}), false, true));
  check("batched matmul", matmul(random({2, 3, 4}), random({2, 4, 2})));
  check("full", Tensor::full({2, 2}, 3.25) + a.getShape()[0]);
}

// Gradients, against the interpreter's own kiln.vjp on the imported
// program (a callee function per gradient). The interpreter's vjp is
// central differences, too noisy to check a second derivative to 2e-6;
// GradTest checks those against derivatives taken by hand.
TEST_F(LazyReferenceTest, Gradients) {
  Tensor x = random({3, 4}), w = random({4, 5}), bias = random({5});
  Tensor hidden = tanh(matmul(x, w) + bias);
  Tensor loss = sum(amax(hidden, {1}) * sum(sigmoid(hidden), {1}), {0});
  std::vector<Tensor> g = grad({loss}, {x, w, bias, hidden});
  check("dx", g[0]);
  check("dw", g[1]);
  check("dbias", g[2]);
  check("dhidden", g[3]);
  Tensor activations = gelu(matmul(x, w)) + gelu(matmul(x, w), true);
  check("through gelu", grad({sum(activations, {0, 1})}, {w})[0]);
  check("through erf", grad({sum(erf(x * 2.0), {0, 1})}, {x})[0]);
  Tensor parts = cat(chunk(x * x, 2, 1), 0);
  check("through slices and concat", grad({parts}, {x}, {random({6, 2})})[0]);
}

} // namespace
