//===- InterpreterTest.cpp - the reference interpreter --------------------===//
//
// Known values for every op family, plus the error paths.
//
//===----------------------------------------------------------------------===//

#include "Reference/Interpreter.h"
#include "kiln/Pipelines/Pipelines.h"
#include "kiln/Support/Philox.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "gtest/gtest.h"

#include <cmath>

using namespace kiln;

namespace {

class InterpreterTest : public ::testing::Test {
protected:
  InterpreterTest() {
    mlir::DialectRegistry registry;
    kiln::registerAllKilnDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// Parses `source` and evaluates @main on `inputs`.
  llvm::Expected<std::vector<HostTensor>> run(llvm::StringRef source,
                                              std::vector<HostTensor> inputs) {
    module = mlir::parseSourceString<mlir::ModuleOp>(source, &context);
    if (!module)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "parse failed");
    auto func = module->lookupSymbol<mlir::func::FuncOp>("main");
    return reference::evaluate(func, inputs);
  }

  static HostTensor tensor(DType dtype, std::vector<int64_t> shape,
                           std::vector<double> values) {
    HostTensor t(dtype, std::move(shape));
    for (size_t i = 0; i < values.size(); ++i)
      t.setFromDouble(i, values[i]);
    return t;
  }

  static std::vector<double> values(const HostTensor &t) {
    std::vector<double> v;
    for (int64_t i = 0; i < t.getNumElements(); ++i)
      v.push_back(t.getAsDouble(i));
    return v;
  }

  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
};

TEST_F(InterpreterTest, Elementwise) {
  auto out = run(R"mlir(
    func.func @main(%x: tensor<3xf32>, %y: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xi1>, tensor<3xf32>) {
      %r = kiln.relu %x : tensor<3xf32>
      %s = kiln.sigmoid %y : tensor<3xf32>
      %p = kiln.pow %y, %y : tensor<3xf32>
      %m = kiln.max %x, %y : tensor<3xf32>
      %c = kiln.cmp lt, %x, %y : tensor<3xf32>
      %sel = kiln.select %c, %x, %y : tensor<3xi1>, tensor<3xf32>
      return %r, %s, %p, %m, %c, %sel : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xi1>, tensor<3xf32>
    })mlir",
                 {tensor(DType::F32, {3}, {-1, 0, 2}),
                  tensor(DType::F32, {3}, {0, 1, 2})});
  ASSERT_TRUE(static_cast<bool>(out)) << llvm::toString(out.takeError());
  EXPECT_EQ(values((*out)[0]), (std::vector<double>{0, 0, 2}));
  EXPECT_EQ((*out)[1].getAsDouble(0), 0.5);
  EXPECT_EQ(values((*out)[2]), (std::vector<double>{1, 1, 4}));
  EXPECT_EQ(values((*out)[3]), (std::vector<double>{0, 1, 2}));
  EXPECT_EQ((*out)[4].getDType(), DType::I1);
  EXPECT_EQ(values((*out)[4]), (std::vector<double>{1, 1, 0}));
  EXPECT_EQ(values((*out)[5]), (std::vector<double>{-1, 0, 2}));
}

TEST_F(InterpreterTest, MaxPropagatesNaN) {
  auto out =
      run(R"mlir(
    func.func @main(%x: tensor<2xf64>, %y: tensor<2xf64>) -> (tensor<2xf64>, tensor<f64>) {
      %m = kiln.max %x, %y : tensor<2xf64>
      %r = kiln.reduce_max %x, dims = [0] : tensor<2xf64> -> tensor<f64>
      return %m, %r : tensor<2xf64>, tensor<f64>
    })mlir",
          {tensor(DType::F64, {2}, {NAN, 1}), tensor(DType::F64, {2}, {0, 2})});
  ASSERT_TRUE(static_cast<bool>(out)) << llvm::toString(out.takeError());
  EXPECT_TRUE(std::isnan((*out)[0].getAsDouble(0)));
  EXPECT_EQ((*out)[0].getAsDouble(1), 2.0);
  EXPECT_TRUE(std::isnan((*out)[1].getAsDouble(0)));
}

TEST_F(InterpreterTest, LayoutOps) {
  auto out = run(R"mlir(
    func.func @main(%x: tensor<2x3xf32>, %b: tensor<3xf32>) -> (tensor<3x2xf32>, tensor<2x3xf32>, tensor<2x2xf32>, tensor<2x5xf32>, tensor<6xf32>) {
      %t = kiln.transpose %x, perm = [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
      %bb = kiln.broadcast_in_dim %b, dims = [1] : tensor<3xf32> -> tensor<2x3xf32>
      %s = kiln.slice %x, offsets = [0, 1], sizes = [2, 2] : tensor<2x3xf32> -> tensor<2x2xf32>
      %k = kiln.concat %x, %s dim = 1 : tensor<2x3xf32>, tensor<2x2xf32> -> tensor<2x5xf32>
      %r = kiln.reshape %x : tensor<2x3xf32> -> tensor<6xf32>
      return %t, %bb, %s, %k, %r : tensor<3x2xf32>, tensor<2x3xf32>, tensor<2x2xf32>, tensor<2x5xf32>, tensor<6xf32>
    })mlir",
                 {tensor(DType::F32, {2, 3}, {0, 1, 2, 3, 4, 5}),
                  tensor(DType::F32, {3}, {10, 20, 30})});
  ASSERT_TRUE(static_cast<bool>(out)) << llvm::toString(out.takeError());
  EXPECT_EQ(values((*out)[0]), (std::vector<double>{0, 3, 1, 4, 2, 5}));
  EXPECT_EQ(values((*out)[1]), (std::vector<double>{10, 20, 30, 10, 20, 30}));
  EXPECT_EQ(values((*out)[2]), (std::vector<double>{1, 2, 4, 5}));
  EXPECT_EQ(values((*out)[3]),
            (std::vector<double>{0, 1, 2, 1, 2, 3, 4, 5, 4, 5}));
  EXPECT_EQ((*out)[4].getShape().vec(), (std::vector<int64_t>{6}));
}

TEST_F(InterpreterTest, ReductionsAndMatmul) {
  auto out = run(R"mlir(
    func.func @main(%x: tensor<2x3xf32>, %w: tensor<2x3xf32>) -> (tensor<3xf32>, tensor<2xf32>, tensor<2x2xf32>, tensor<3x3xf32>) {
      %s = kiln.reduce_sum %x, dims = [0] : tensor<2x3xf32> -> tensor<3xf32>
      %m = kiln.reduce_max %x, dims = [1] : tensor<2x3xf32> -> tensor<2xf32>
      %p = kiln.matmul %x, %w {transpose_b = true} : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x2xf32>
      %q = kiln.matmul %x, %w {transpose_a = true} : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<3x3xf32>
      return %s, %m, %p, %q : tensor<3xf32>, tensor<2xf32>, tensor<2x2xf32>, tensor<3x3xf32>
    })mlir",
                 {tensor(DType::F32, {2, 3}, {1, 2, 3, 4, 5, 6}),
                  tensor(DType::F32, {2, 3}, {1, 0, 0, 0, 1, 0})});
  ASSERT_TRUE(static_cast<bool>(out)) << llvm::toString(out.takeError());
  EXPECT_EQ(values((*out)[0]), (std::vector<double>{5, 7, 9}));
  EXPECT_EQ(values((*out)[1]), (std::vector<double>{3, 6}));
  EXPECT_EQ(values((*out)[2]), (std::vector<double>{1, 2, 4, 5}));
  // x^T w: column i of x times row j of w.
  EXPECT_EQ(values((*out)[3]),
            (std::vector<double>{1, 4, 0, 2, 5, 0, 3, 6, 0}));
}

TEST_F(InterpreterTest, BatchedMatmulConvertConstantAndGroups) {
  auto out = run(R"mlir(
    func.func @helper(%a: tensor<2xf32>) -> tensor<2xf32> {
      %n = kiln.neg %a : tensor<2xf32>
      return %n : tensor<2xf32>
    }
    func.func @main(%a: tensor<2x1x2xf32>, %b: tensor<2x2x1xf32>) -> (tensor<2x1x1xf32>, tensor<2xf16>, tensor<2xf32>) {
      %m = kiln.matmul %a, %b : tensor<2x1x2xf32>, tensor<2x2x1xf32> -> tensor<2x1x1xf32>
      %c = kiln.constant dense<[1.0, 0.1]> : tensor<2xf32>
      %h = kiln.convert %c : tensor<2xf32> -> tensor<2xf16>
      %g = kiln.fusion_group %c : (tensor<2xf32>) -> tensor<2xf32> {
      ^bb0(%x: tensor<2xf32>):
        %e = kiln.exp %x : tensor<2xf32>
        kiln.yield %e : tensor<2xf32>
      }
      %n = func.call @helper(%g) : (tensor<2xf32>) -> tensor<2xf32>
      return %m, %h, %n : tensor<2x1x1xf32>, tensor<2xf16>, tensor<2xf32>
    })mlir",
                 {tensor(DType::F32, {2, 1, 2}, {1, 2, 3, 4}),
                  tensor(DType::F32, {2, 2, 1}, {1, 1, 2, 2})});
  ASSERT_TRUE(static_cast<bool>(out)) << llvm::toString(out.takeError());
  EXPECT_EQ(values((*out)[0]), (std::vector<double>{3, 14}));
  EXPECT_EQ((*out)[1].getDType(), DType::F16);
  EXPECT_EQ((*out)[1].getAsDouble(1), roundToDType(0.1f, DType::F16));
  EXPECT_EQ((*out)[2].getAsDouble(0),
            -static_cast<double>(static_cast<float>(std::exp(1.0))));
}

TEST_F(InterpreterTest, DynamicDimsTakeTheInputSize) {
  auto out = run(R"mlir(
    func.func @main(%x: tensor<?x2xf32>) -> tensor<?xf32> {
      %s = kiln.reduce_sum %x, dims = [1] : tensor<?x2xf32> -> tensor<?xf32>
      return %s : tensor<?xf32>
    })mlir",
                 {tensor(DType::F32, {3, 2}, {1, 1, 2, 2, 3, 3})});
  ASSERT_TRUE(static_cast<bool>(out)) << llvm::toString(out.takeError());
  EXPECT_EQ(values((*out)[0]), (std::vector<double>{2, 4, 6}));
}

TEST_F(InterpreterTest, RejectsBadInputs) {
  const char *source = R"mlir(
    func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
      return %x : tensor<2xf32>
    }
    func.func @main(%x: tensor<2xf32>, %ct: tensor<2xf32>) -> tensor<2xf32> {
      %g = kiln.vjp @f(%x, %ct) wrt [0] : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
      return %g : tensor<2xf32>
    })mlir";
  auto wrongCount = run(source, {tensor(DType::F32, {2}, {1, 2})});
  ASSERT_FALSE(static_cast<bool>(wrongCount));
  EXPECT_NE(llvm::toString(wrongCount.takeError()).find("takes 2 arguments"),
            std::string::npos);

  auto wrongType = run(source, {tensor(DType::F64, {2}, {1, 2}),
                                tensor(DType::F32, {2}, {1, 2})});
  ASSERT_FALSE(static_cast<bool>(wrongType));
  EXPECT_NE(llvm::toString(wrongType.takeError())
                .find("argument 0 is tensor<2xf64> but tensor<2xf32>"),
            std::string::npos);
}

TEST_F(InterpreterTest, VjpByFiniteDifferences) {
  // d/dx <ct, x*x + sin(w)> = 2 x ct; a vjp of a vjp gives 2 ct2 ct.
  const char *source = R"mlir(
    func.func @f(%x: tensor<3xf64>, %w: tensor<3xf64>) -> tensor<3xf64> {
      %sq = kiln.mul %x, %x : tensor<3xf64>
      %s = kiln.sin %w : tensor<3xf64>
      %y = kiln.add %sq, %s : tensor<3xf64>
      return %y : tensor<3xf64>
    }
    func.func @g(%x: tensor<3xf64>, %w: tensor<3xf64>, %ct: tensor<3xf64>) -> tensor<3xf64> {
      %d = kiln.vjp @f(%x, %w, %ct) wrt [0] : (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
      return %d : tensor<3xf64>
    }
    func.func @main(%x: tensor<3xf64>, %w: tensor<3xf64>, %ct: tensor<3xf64>, %ct2: tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>) {
      %d = func.call @g(%x, %w, %ct) : (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
      %dd = kiln.vjp @g(%x, %w, %ct, %ct2) wrt [0] : (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
      return %d, %dd : tensor<3xf64>, tensor<3xf64>
    })mlir";
  auto out = run(source, {tensor(DType::F64, {3}, {1, -2, 0.5}),
                          tensor(DType::F64, {3}, {0.1, 0.2, 0.3}),
                          tensor(DType::F64, {3}, {1, 2, 3}),
                          tensor(DType::F64, {3}, {1, 1, -1})});
  ASSERT_TRUE(static_cast<bool>(out)) << llvm::toString(out.takeError());
  std::vector<double> first = {2, -8, 3}, second = {2, 4, -6};
  for (int i = 0; i < 3; ++i) {
    EXPECT_NEAR((*out)[0].getAsDouble(i), first[i], 1e-8);
    EXPECT_NEAR((*out)[1].getAsDouble(i), second[i], 1e-5);
  }
}

} // namespace

//===----------------------------------------------------------------------===//
// Integers, gathers and random numbers (issue 38)
//===----------------------------------------------------------------------===//

namespace {

TEST_F(InterpreterTest, IntegerArithmeticWrapsAround) {
  auto out = run(R"mlir(
    func.func @main(%a: tensor<3xi32>, %b: tensor<3xi32>) -> (tensor<3xi32>, tensor<3xi32>, tensor<3xi1>, tensor<3xf32>) {
      %s = "kiln.add"(%a, %b) : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
      %m = "kiln.mul"(%a, %b) : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
      %c = "kiln.cmp"(%a, %b) <{predicate = #kiln<predicate lt>}> : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
      %f = "kiln.convert"(%a) : (tensor<3xi32>) -> tensor<3xf32>
      return %s, %m, %c, %f : tensor<3xi32>, tensor<3xi32>, tensor<3xi1>, tensor<3xf32>
    })mlir",
                 {tensor(DType::I32, {3}, {2147483647, -7, 65536}),
                  tensor(DType::I32, {3}, {1, 3, 65536})});
  ASSERT_TRUE(bool(out)) << llvm::toString(out.takeError());
  EXPECT_EQ((*out)[0].getAsInt64(0), -2147483648); // INT32_MAX + 1 wraps
  EXPECT_EQ((*out)[0].getAsInt64(1), -4);
  EXPECT_EQ((*out)[1].getAsInt64(2), 0); // 2^32 wraps to 0
  EXPECT_EQ((*out)[1].getAsInt64(1), -21);
  EXPECT_EQ(values((*out)[2]), (std::vector<double>{0, 1, 0}));
  EXPECT_EQ(values((*out)[3]), (std::vector<double>{2147483648.0, -7, 65536}));
}

TEST_F(InterpreterTest, FloatToIntegerTruncatesAndSaturates) {
  auto out = run(R"mlir(
    func.func @main(%x: tensor<5xf32>) -> tensor<5xi32> {
      %i = "kiln.convert"(%x) : (tensor<5xf32>) -> tensor<5xi32>
      return %i : tensor<5xi32>
    })mlir",
                 {tensor(DType::F32, {5}, {2.9, -2.9, 1e20, -1e20, NAN})});
  ASSERT_TRUE(bool(out)) << llvm::toString(out.takeError());
  EXPECT_EQ(values((*out)[0]),
            (std::vector<double>{2, -2, 2147483647, -2147483648.0, 0}));
}

TEST_F(InterpreterTest, TakeGathersAndGivesNanOutOfRange) {
  auto out = run(R"mlir(
    func.func @main(%w: tensor<3x2xf32>, %ids: tensor<2x2xi64>) -> (tensor<2x2x2xf32>, tensor<3x2x2xf32>) {
      %e = "kiln.take"(%w, %ids) <{dim = 0 : i64}> : (tensor<3x2xf32>, tensor<2x2xi64>) -> tensor<2x2x2xf32>
      %c = "kiln.take"(%w, %ids) <{dim = 1 : i64}> : (tensor<3x2xf32>, tensor<2x2xi64>) -> tensor<3x2x2xf32>
      return %e, %c : tensor<2x2x2xf32>, tensor<3x2x2xf32>
    })mlir",
                 {tensor(DType::F32, {3, 2}, {0, 1, 10, 11, 20, 21}),
                  tensor(DType::I64, {2, 2}, {2, 0, 3, -1})});
  ASSERT_TRUE(bool(out)) << llvm::toString(out.takeError());
  std::vector<double> rows = values((*out)[0]);
  EXPECT_EQ(std::vector<double>(rows.begin(), rows.begin() + 4),
            (std::vector<double>{20, 21, 0, 1}));
  for (int i = 4; i < 8; ++i) // indices 3 and -1 are out of range
    EXPECT_TRUE(std::isnan(rows[i])) << i;
  std::vector<double> cols = values((*out)[1]);
  EXPECT_EQ(cols[0 * 4 + 1], 0);    // row 0, index 0
  EXPECT_EQ(cols[2 * 4 + 1], 20);   // row 2, index 0
  EXPECT_TRUE(std::isnan(cols[0])); // index 2 along a dim of 2
}

TEST_F(InterpreterTest, ScatterAddAccumulatesRepeatsAndDropsOutOfRange) {
  auto out = run(R"mlir(
    func.func @main(%z: tensor<3x2xf32>, %ids: tensor<4xi32>, %u: tensor<4x2xf32>) -> tensor<3x2xf32> {
      %d = "kiln.scatter_add"(%z, %ids, %u) <{dim = 0 : i64}> : (tensor<3x2xf32>, tensor<4xi32>, tensor<4x2xf32>) -> tensor<3x2xf32>
      return %d : tensor<3x2xf32>
    })mlir",
                 {tensor(DType::F32, {3, 2}, {1, 1, 1, 1, 1, 1}),
                  tensor(DType::I32, {4}, {2, 2, 7, 0}),
                  tensor(DType::F32, {4, 2}, {1, 2, 10, 20, 100, 200, 5, 6})});
  ASSERT_TRUE(bool(out)) << llvm::toString(out.takeError());
  EXPECT_EQ(values((*out)[0]), (std::vector<double>{6, 7, 1, 1, 12, 23}));
}

TEST_F(InterpreterTest, ArgmaxTakesTheFirstMaximumAndTheFirstNan) {
  auto out = run(R"mlir(
    func.func @main(%x: tensor<3x4xf32>) -> tensor<3xi64> {
      %a = "kiln.argmax"(%x) <{dim = 1 : i64}> : (tensor<3x4xf32>) -> tensor<3xi64>
      return %a : tensor<3xi64>
    })mlir",
                 {tensor(DType::F32, {3, 4},
                         {1, 5, 5, 2, 3, NAN, 9, NAN, -1, -1, -1, -1})});
  ASSERT_TRUE(bool(out)) << llvm::toString(out.takeError());
  EXPECT_EQ(values((*out)[0]), (std::vector<double>{1, 1, 0}));
}

TEST_F(InterpreterTest, IotaAndRngUniform) {
  auto out = run(R"mlir(
    func.func @main(%key: tensor<2xi64>) -> (tensor<2x3xi32>, tensor<2x3xf32>) {
      %p = "kiln.iota"() <{dim = 1 : i64}> : () -> tensor<2x3xi32>
      %u = "kiln.rng_uniform"(%key) : (tensor<2xi64>) -> tensor<2x3xf32>
      return %p, %u : tensor<2x3xi32>, tensor<2x3xf32>
    })mlir",
                 {tensor(DType::I64, {2}, {1234, 8})});
  ASSERT_TRUE(bool(out)) << llvm::toString(out.takeError());
  EXPECT_EQ(values((*out)[0]), (std::vector<double>{0, 1, 2, 0, 1, 2}));
  for (int n = 0; n < 6; ++n)
    EXPECT_EQ((*out)[1].getAsDouble(n), philox::uniformValue(1234, 8, n)) << n;
}

TEST_F(InterpreterTest, IntegersBeyondTwoToThe53AreRefused) {
  auto out = run(R"mlir(
    func.func @main(%x: tensor<1xi64>) -> tensor<1xi64> {
      return %x : tensor<1xi64>
    })mlir",
                 {[] {
                   HostTensor t(DType::I64, {1});
                   t.setFromInt64(0, (int64_t(1) << 60) + 1);
                   return t;
                 }()});
  ASSERT_FALSE(bool(out));
  EXPECT_NE(llvm::toString(out.takeError()).find("2^53"), std::string::npos);
}

} // namespace
