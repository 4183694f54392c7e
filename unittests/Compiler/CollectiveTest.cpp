//===- CollectiveTest.cpp - collectives over several simulated ranks ------===//
//
// The reference interpreter's ranks (evaluateRanks) against values computed
// here, and -kiln-autodiff's VJP rules of the collectives against the
// interpreter's finite differences over the whole group: for each sample,
// the vjp of @f evaluated by differences (every rank's objective summed,
// each rank's inputs perturbed in turn) must equal the vjp that
// -kiln-autodiff expands into collectives, evaluated over the same ranks.
//
//===----------------------------------------------------------------------===//

#include "KilnTestContext.h"
#include "Reference/Interpreter.h"
#include "kiln/Dialect/Kiln/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassManager.h"

#include <random>

using namespace kiln;

namespace {

class CollectiveTest : public KilnTestContext {
protected:
  /// Inputs for `ranks` ranks of @`entry`'s argument types, in [0.5, 1.5).
  std::vector<std::vector<HostTensor>> makeInputs(llvm::StringRef entry,
                                                  int ranks) {
    auto func = module->lookupSymbol<mlir::func::FuncOp>(entry);
    std::uniform_real_distribution<double> dist(0.5, 1.5);
    std::vector<std::vector<HostTensor>> inputs(ranks);
    for (int r = 0; r < ranks; ++r)
      for (mlir::Type type : func.getArgumentTypes()) {
        auto tensor = mlir::cast<mlir::RankedTensorType>(type);
        HostTensor input(DType::F64, tensor.getShape());
        for (int64_t i = 0; i < input.getNumElements(); ++i)
          input.setFromDouble(i, dist(rng));
        inputs[r].push_back(std::move(input));
      }
    return inputs;
  }

  llvm::Expected<std::vector<std::vector<HostTensor>>>
  run(llvm::StringRef entry, llvm::ArrayRef<std::vector<HostTensor>> inputs,
      llvm::ArrayRef<std::vector<int>> groups = {}) {
    auto func = module->lookupSymbol<mlir::func::FuncOp>(entry);
    EXPECT_TRUE(func) << "no @" << entry.str();
    return reference::evaluateRanks(func, inputs, groups);
  }

  /// The VJP that -kiln-autodiff expands for `sample`'s @f against the
  /// interpreter's differences, over `ranks` ranks with `groups`.
  void checkVjp(const char *sample, int ranks,
                llvm::ArrayRef<std::vector<int>> groups = {});

  std::mt19937 rng{19};
};

TEST_F(CollectiveTest, RanksCombineAsTheHostDoes) {
  ASSERT_TRUE(parse(R"(
    func.func @f(%x: tensor<2x6xf64>) -> (tensor<2x6xf64>, tensor<2x6xf64>,
        tensor<2x6xf64>, tensor<2x18xf64>, tensor<2x2xf64>, tensor<2x2xf64>) {
      %s = kiln.all_reduce sum, %x group = 0 : tensor<2x6xf64>
      %m = kiln.all_reduce mean, %x group = 0 : tensor<2x6xf64>
      %x2 = kiln.all_reduce max, %x group = 0 : tensor<2x6xf64>
      %g = kiln.all_gather %x dim = 1 group = 0 : tensor<2x6xf64> -> tensor<2x18xf64>
      %r = kiln.reduce_scatter sum, %x dim = 1 group = 0 : tensor<2x6xf64> -> tensor<2x2xf64>
      %q = kiln.reduce_scatter max, %x dim = 1 group = 0 : tensor<2x6xf64> -> tensor<2x2xf64>
      return %s, %m, %x2, %g, %r, %q : tensor<2x6xf64>, tensor<2x6xf64>,
        tensor<2x6xf64>, tensor<2x18xf64>, tensor<2x2xf64>, tensor<2x2xf64>
    })"));
  const int ranks = 3;
  auto inputs = makeInputs("f", ranks);
  auto results = run("f", inputs);
  ASSERT_TRUE(static_cast<bool>(results))
      << llvm::toString(results.takeError());
  ASSERT_EQ(results->size(), 3u);
  auto x = [&](int r, int64_t i, int64_t j) {
    return inputs[r][0].getAsDouble(i * 6 + j);
  };
  for (int r = 0; r < ranks; ++r) {
    const std::vector<HostTensor> &out = (*results)[r];
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t j = 0; j < 6; ++j) {
        double sum = x(0, i, j) + x(1, i, j) + x(2, i, j);
        double max = std::max({x(0, i, j), x(1, i, j), x(2, i, j)});
        EXPECT_DOUBLE_EQ(out[0].getAsDouble(i * 6 + j), sum);
        EXPECT_DOUBLE_EQ(out[1].getAsDouble(i * 6 + j), sum / 3);
        EXPECT_DOUBLE_EQ(out[2].getAsDouble(i * 6 + j), max);
        for (int s = 0; s < ranks; ++s)
          EXPECT_DOUBLE_EQ(out[3].getAsDouble(i * 18 + s * 6 + j), x(s, i, j));
      }
    // Rank r keeps columns [2r, 2r + 2) of the reduction.
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t j = 0; j < 2; ++j) {
        int64_t c = 2 * r + j;
        EXPECT_DOUBLE_EQ(out[4].getAsDouble(i * 2 + j),
                         x(0, i, c) + x(1, i, c) + x(2, i, c));
        EXPECT_DOUBLE_EQ(out[5].getAsDouble(i * 2 + j),
                         std::max({x(0, i, c), x(1, i, c), x(2, i, c)}));
      }
  }
}

/// @f of each sample differentiates through collectives over 3 ranks.
const char *const kGradientSamples[] = {
    R"(func.func @f(%x: tensor<2x3xf64>, %w: tensor<2x3xf64>) -> tensor<2x3xf64> {
      %p = kiln.mul %x, %w : tensor<2x3xf64>
      %s = kiln.all_reduce sum, %p group = 0 : tensor<2x3xf64>
      %t = kiln.tanh %s : tensor<2x3xf64>
      %y = kiln.mul %t, %x : tensor<2x3xf64>
      return %y : tensor<2x3xf64>
    })",
    R"(func.func @f(%x: tensor<2x3xf64>, %w: tensor<2x3xf64>) -> tensor<2x3xf64> {
      %p = kiln.sin %x : tensor<2x3xf64>
      %m = kiln.all_reduce mean, %p group = 0 : tensor<2x3xf64>
      %y = kiln.mul %m, %w : tensor<2x3xf64>
      return %y : tensor<2x3xf64>
    })",
    R"(func.func @f(%x: tensor<2x3xf64>, %w: tensor<2x3xf64>) -> tensor<2x3xf64> {
      %p = kiln.mul %x, %w : tensor<2x3xf64>
      %m = kiln.all_reduce max, %p group = 0 : tensor<2x3xf64>
      %y = kiln.mul %m, %m : tensor<2x3xf64>
      return %y : tensor<2x3xf64>
    })",
    R"(func.func @f(%x: tensor<2x3xf64>, %w: tensor<2x3xf64>) -> tensor<2x9xf64> {
      %p = kiln.mul %x, %w : tensor<2x3xf64>
      %g = kiln.all_gather %p dim = 1 group = 0 : tensor<2x3xf64> -> tensor<2x9xf64>
      %y = kiln.sin %g : tensor<2x9xf64>
      return %y : tensor<2x9xf64>
    })",
    R"(func.func @f(%x: tensor<6x3xf64>, %w: tensor<6x3xf64>) -> tensor<2x3xf64> {
      %p = kiln.mul %x, %w : tensor<6x3xf64>
      %r = kiln.reduce_scatter sum, %p dim = 0 group = 0 : tensor<6x3xf64> -> tensor<2x3xf64>
      %y = kiln.tanh %r : tensor<2x3xf64>
      return %y : tensor<2x3xf64>
    })",
    R"(func.func @f(%x: tensor<6x3xf64>, %w: tensor<6x3xf64>) -> tensor<2x3xf64> {
      %p = kiln.exp %x : tensor<6x3xf64>
      %r = kiln.reduce_scatter mean, %p dim = 0 group = 0 : tensor<6x3xf64> -> tensor<2x3xf64>
      %y = kiln.mul %r, %r : tensor<2x3xf64>
      return %y : tensor<2x3xf64>
    })",
};

/// The vjp of @f of `sample` with respect to both arguments.
std::string withVjp(llvm::StringRef sample, llvm::StringRef argType,
                    llvm::StringRef resultType) {
  return (sample + "\n  func.func @vjp(%x: " + argType + ", %w: " + argType +
          ", %ct: " + resultType + ") -> (" + argType + ", " + argType +
          ") {\n    %g:2 = kiln.vjp @f(%x, %w, %ct) wrt [0, 1] : (" + argType +
          ", " + argType + ", " + resultType + ") -> (" + argType + ", " +
          argType + ")\n    return %g#0, %g#1 : " + argType + ", " + argType +
          "\n  }\n")
      .str();
}

void CollectiveTest::checkVjp(const char *sample, int ranks,
                              llvm::ArrayRef<std::vector<int>> groups) {
  SCOPED_TRACE(sample);
  ASSERT_TRUE(parse(sample));
  auto f = module->lookupSymbol<mlir::func::FuncOp>("f");
  std::string arg, result;
  llvm::raw_string_ostream(arg) << f.getArgumentTypes()[0];
  llvm::raw_string_ostream(result) << f.getResultTypes()[0];
  std::string source = withVjp(sample, arg, result);
  ASSERT_TRUE(parse(source));
  auto inputs = makeInputs("vjp", ranks);
  auto expected = run("vjp", inputs, groups);
  ASSERT_TRUE(static_cast<bool>(expected))
      << llvm::toString(expected.takeError());

  mlir::PassManager pm(&context);
  pm.addPass(createKilnAutodiff());
  ASSERT_TRUE(mlir::succeeded(pm.run(*module)));
  bool expanded = true;
  module->walk([&](VjpOp) { expanded = false; });
  ASSERT_TRUE(expanded);
  auto got = run("vjp", inputs, groups);
  ASSERT_TRUE(static_cast<bool>(got)) << llvm::toString(got.takeError());
  for (int r = 0; r < ranks; ++r)
    for (int k = 0; k < 2; ++k) {
      const HostTensor &want = (*expected)[r][k], &have = (*got)[r][k];
      ASSERT_EQ(want.getShape(), have.getShape());
      for (int64_t i = 0; i < want.getNumElements(); ++i)
        EXPECT_NEAR(have.getAsDouble(i), want.getAsDouble(i),
                    1e-7 * std::max(1.0, std::abs(want.getAsDouble(i))))
            << "rank " << r << ", gradient " << k << ", element " << i;
    }
}

TEST_F(CollectiveTest, VjpRulesMatchDifferencesOverTheGroup) {
  for (const char *sample : kGradientSamples)
    checkVjp(sample, 3);
}

TEST_F(CollectiveTest, GroupsCombineTheirRanksInTheirOrder) {
  ASSERT_TRUE(parse(R"(
    func.func @f(%x: tensor<2x3xf64>) -> (tensor<6x3xf64>, tensor<2x3xf64>) {
      %g = kiln.all_gather %x dim = 0 group = 1 : tensor<2x3xf64> -> tensor<6x3xf64>
      %s = kiln.all_reduce sum, %x group = 2 : tensor<2x3xf64>
      return %g, %s : tensor<6x3xf64>, tensor<2x3xf64>
    })"));
  // Group 1: every rank, rank 2 first; group 2: the world again.
  const std::vector<std::vector<int>> groups = {{2, 0, 1}, {0, 1, 2}};
  auto inputs = makeInputs("f", 3);
  auto results = run("f", inputs, groups);
  ASSERT_TRUE(static_cast<bool>(results))
      << llvm::toString(results.takeError());
  for (int r = 0; r < 3; ++r)
    for (int64_t i = 0; i < 6; ++i) {
      int from = groups[0][i / 2];
      EXPECT_DOUBLE_EQ((*results)[r][0].getAsDouble(i * 3),
                       inputs[from][0].getAsDouble((i % 2) * 3));
    }
  // A rank outside a group fails at its collective; the others do not wait
  // for it there.
  auto pair = run("f", inputs, {{2, 0, 1}, {2, 0}});
  ASSERT_FALSE(static_cast<bool>(pair));
  std::string why = llvm::toString(pair.takeError());
  EXPECT_NE(why.find("rank 1: kiln.all_reduce: rank 1 is not in group 2"),
            std::string::npos)
      << why;
  EXPECT_EQ(why.find("rank 0:"), std::string::npos) << why;
  // Bad groups, and a group that was never made.
  for (auto [bad, message] :
       {std::pair<std::vector<std::vector<int>>, const char *>{
            {{0, 0}}, "group 1 names rank 0 twice"},
        {{{3}}, "group 1 names rank 3 of no rank"},
        {{{}}, "group 1 has no rank"},
        {{{0, 1, 2}},
         "group 2 is not a communicator of the simulated ranks"}}) {
    auto failed = run("f", inputs, bad);
    ASSERT_FALSE(static_cast<bool>(failed)) << message;
    std::string text = llvm::toString(failed.takeError());
    EXPECT_NE(text.find(message), std::string::npos) << text;
  }
}

TEST_F(CollectiveTest, VjpRulesHoldInGroupsOfOtherOrders) {
  // The all_gather's VJP is a reduce_scatter in the same group: rank 2
  // takes the first part of both.
  checkVjp(
      R"(func.func @f(%x: tensor<2x3xf64>, %w: tensor<2x3xf64>) -> tensor<6x3xf64> {
      %s = kiln.sin %x : tensor<2x3xf64>
      %p = kiln.mul %s, %w : tensor<2x3xf64>
      %g = kiln.all_gather %p dim = 0 group = 1 : tensor<2x3xf64> -> tensor<6x3xf64>
      %y = kiln.mul %g, %g : tensor<6x3xf64>
      return %y : tensor<6x3xf64>
    })",
      3, {{2, 0, 1}});
}

TEST_F(CollectiveTest, AMaxReduceScatterHasNoGradient) {
  ASSERT_TRUE(parse(withVjp(
      R"(func.func @f(%x: tensor<6x3xf64>, %w: tensor<6x3xf64>) -> tensor<2x3xf64> {
      %p = kiln.mul %x, %w : tensor<6x3xf64>
      %r = kiln.reduce_scatter max, %p dim = 0 group = 0 : tensor<6x3xf64> -> tensor<2x3xf64>
      return %r : tensor<2x3xf64>
    })",
      "tensor<6x3xf64>", "tensor<2x3xf64>")));
  std::string diagnostics;
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
    diagnostics += d.str() + "\n";
    return mlir::success();
  });
  mlir::PassManager pm(&context);
  pm.addPass(createKilnAutodiff());
  EXPECT_TRUE(mlir::failed(pm.run(*module)));
  EXPECT_NE(diagnostics.find("max reduce_scatter"), std::string::npos)
      << diagnostics;
}

TEST_F(CollectiveTest, RanksThatDisagreeFailInsteadOfHanging) {
  ASSERT_TRUE(parse(R"(
    func.func @f(%x: tensor<?x3xf64>) -> tensor<?x3xf64> {
      %s = kiln.all_reduce sum, %x group = 0 : tensor<?x3xf64>
      return %s : tensor<?x3xf64>
    })"));
  // Rank 1 passes another shape.
  std::vector<std::vector<HostTensor>> inputs(2);
  inputs[0].push_back(HostTensor(DType::F64, {2, 3}));
  inputs[1].push_back(HostTensor(DType::F64, {4, 3}));
  auto results = run("f", inputs);
  ASSERT_FALSE(static_cast<bool>(results));
  std::string why = llvm::toString(results.takeError());
  EXPECT_NE(why.find("rank 0: kiln.all_reduce: rank 1's operand is 4x3 "
                     "where rank 0's is 2x3"),
            std::string::npos)
      << why;

  // Rank 1 fails before the collective: rank 0 is told, not left waiting.
  inputs[1].clear();
  results = run("f", inputs);
  ASSERT_FALSE(static_cast<bool>(results));
  why = llvm::toString(results.takeError());
  EXPECT_NE(why.find("rank 1 left the group"), std::string::npos) << why;
}

TEST_F(CollectiveTest, ResultTypesMustMatchTheNumberOfRanks) {
  ASSERT_TRUE(parse(R"(
    func.func @f(%x: tensor<2x3xf64>) -> tensor<4x3xf64> {
      %g = kiln.all_gather %x dim = 0 group = 0 : tensor<2x3xf64> -> tensor<4x3xf64>
      return %g : tensor<4x3xf64>
    })"));
  auto results = run("f", makeInputs("f", 3));
  ASSERT_FALSE(static_cast<bool>(results));
  std::string why = llvm::toString(results.takeError());
  EXPECT_NE(why.find("the result is 6 at dim 0 over 3 rank(s), not 4"),
            std::string::npos)
      << why;
  // Over 2 ranks it is right.
  auto two = run("f", makeInputs("f", 2));
  EXPECT_TRUE(static_cast<bool>(two)) << llvm::toString(two.takeError());
}

} // namespace
