//===- TraceImporterTest.cpp - trace programs as kiln functions --------===//
//
// Imports recorded programs, checks the functions verify and say what was
// recorded, and runs them through the CPU pipeline against values computed
// here.
//
//===----------------------------------------------------------------------===//

#include "Compiler/Frontend/TraceImporter.h"
#include "KilnTestContext.h"
#include "kiln/Compiler/Executable.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Verifier.h"

#include <cmath>

using namespace kiln;

namespace {

class TraceImporterTest : public KilnTestContext {
protected:
  /// Imports `outputs`, checks the module verifies, compiles it, and runs
  /// it on `inputs` (one per parameter).
  std::vector<HostTensor> run(llvm::ArrayRef<NodeRef> outputs,
                              llvm::ArrayRef<HostTensor> inputs) {
    TraceProgram program = TraceProgram::extract(outputs);
    module = importTrace(context, program);
    EXPECT_TRUE(mlir::succeeded(mlir::verify(*module)));
    auto exe = Executable::compile(*module, "main");
    if (!exe) {
      ADD_FAILURE() << llvm::toString(exe.takeError());
      return {};
    }
    auto results = (*exe)->run(inputs);
    if (!results) {
      ADD_FAILURE() << llvm::toString(results.takeError());
      return {};
    }
    return std::move(*results);
  }

  static HostTensor tensor(std::vector<int64_t> shape,
                           std::vector<float> values) {
    auto t = HostTensor::create(DType::F32, shape);
    EXPECT_TRUE(static_cast<bool>(t));
    std::copy(values.begin(), values.end(), static_cast<float *>(t->getData()));
    return std::move(*t);
  }
};

NodeRef ok(llvm::Expected<NodeRef> node) {
  if (!node) {
    ADD_FAILURE() << llvm::toString(node.takeError());
    return nullptr;
  }
  return *node;
}

// A linear layer with tanh, summed over the batch:
// out = sum_rows(tanh(x W^T + b)).
TEST_F(TraceImporterTest, LinearTanhSum) {
  NodeRef x = TraceNode::parameter(DType::F32, {2, 3});
  NodeRef w = TraceNode::parameter(DType::F32, {4, 3});
  NodeRef b = TraceNode::parameter(DType::F32, {4});
  NodeRef xw = ok(TraceNode::matmul(x, w, false, true));
  NodeRef bb = ok(TraceNode::broadcastInDim(b, {2, 4}, {1}));
  NodeRef t = ok(TraceNode::elementwise(
      TraceOp::Tanh, {ok(TraceNode::elementwise(TraceOp::Add, {xw, bb}))}));
  NodeRef sum = ok(TraceNode::reduce(TraceOp::ReduceSum, t, {0}));
  std::vector<float> xs = {0.1f, -0.2f, 0.3f, 0.4f, 0.5f, -0.6f};
  std::vector<float> ws = {0.1f, 0.2f, 0.3f, -0.1f, -0.2f, -0.3f,
                           0.5f, 0.0f, 0.5f, 1.0f,  -1.0f, 0.0f};
  std::vector<float> bs = {0.0f, 0.1f, -0.1f, 0.2f};
  std::vector<HostTensor> out =
      run({sum, t}, {tensor({2, 3}, xs), tensor({4, 3}, ws), tensor({4}, bs)});
  ASSERT_EQ(out.size(), 2u);
  const float *got = static_cast<const float *>(out[0].getData());
  const float *rows = static_cast<const float *>(out[1].getData());
  for (int j = 0; j < 4; ++j) {
    double expected = 0;
    for (int i = 0; i < 2; ++i) {
      double acc = bs[j];
      for (int k = 0; k < 3; ++k)
        acc += xs[i * 3 + k] * ws[j * 3 + k];
      EXPECT_NEAR(rows[i * 4 + j], std::tanh(acc), 1e-6);
      expected += std::tanh(acc);
    }
    EXPECT_NEAR(got[j], expected, 1e-6);
  }
}

// Slices, a concat of unequal parts, a comparison and a select, and a
// constant: relu written by hand, the halves swapped.
TEST_F(TraceImporterTest, ShapesAndSelect) {
  NodeRef x = TraceNode::parameter(DType::F32, {1, 5});
  NodeRef zero = ok(TraceNode::constant(DType::F32, {1, 5}, 0.0));
  NodeRef positive = ok(TraceNode::cmp(TracePredicate::GT, x, zero));
  NodeRef relu = ok(TraceNode::select(positive, x, zero));
  NodeRef head = ok(TraceNode::slice(relu, {0, 0}, {1, 2}));
  NodeRef tail = ok(TraceNode::slice(relu, {0, 2}, {1, 3}));
  NodeRef swapped = ok(TraceNode::concat({tail, head}, 1));
  std::vector<HostTensor> out =
      run({swapped}, {tensor({1, 5}, {1, -2, 3, -4, 5})});
  ASSERT_EQ(out.size(), 1u);
  const float *got = static_cast<const float *>(out[0].getData());
  EXPECT_EQ(std::vector<float>(got, got + 5),
            (std::vector<float>{3, 0, 5, 1, 0}));
}

// A parameter read twice is one argument; the outputs come in the order
// asked for, a parameter among them.
TEST_F(TraceImporterTest, ArgumentsAndResults) {
  NodeRef x = TraceNode::parameter(DType::F32, {3});
  NodeRef sq = ok(TraceNode::elementwise(TraceOp::Mul, {x, x}));
  TraceProgram program = TraceProgram::extract({x, sq});
  module = importTrace(context, program, "f");
  auto f = module->lookupSymbol<mlir::func::FuncOp>("f");
  ASSERT_TRUE(f);
  EXPECT_EQ(f.getNumArguments(), 1u);
  EXPECT_EQ(f.getNumResults(), 2u);
  std::vector<HostTensor> out = run({x, sq}, {tensor({3}, {1, 2, 3})});
  ASSERT_EQ(out.size(), 2u);
  const float *first = static_cast<const float *>(out[0].getData());
  const float *second = static_cast<const float *>(out[1].getData());
  EXPECT_EQ(std::vector<float>(first, first + 3),
            (std::vector<float>{1, 2, 3}));
  EXPECT_EQ(std::vector<float>(second, second + 3),
            (std::vector<float>{1, 4, 9}));
}

} // namespace
