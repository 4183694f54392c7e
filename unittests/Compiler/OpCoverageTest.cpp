//===- OpCoverageTest.cpp - every kiln op through every layer -----------===//
//
// Iterates over the kiln dialect's registered ops (not a list kept here), so
// that a new op fails this test until each layer handles it:
// - the trace table (TraceOps.def) names it;
// - the reference interpreter evaluates it;
// - the CPU pipeline lowers it, and the compiled result matches the
//   interpreter;
// - -kiln-autodiff has its VJP rule, and the compiled gradient matches the
//   interpreter's finite differences;
// - an elementwise op reaches Python: its TraceOps.def line makes kiln.<fn>
//   and Tensor.<fn> (test_torch_names.py runs each), or Python spells it
//   otherwise (getPythonSpellings);
// - kiln-fuzz-diff draws it: the fuzzer's rule table (ElementwiseRules.cpp)
//   holds its domain, bounds and derivative.
// Elementwise ops get their sample program from their traits (one operand
// or two); the others have one written out below. Samples are f64 with
// inputs in [0.5, 1.5), inside every op's domain and away from the kinks.
//
//===----------------------------------------------------------------------===//

#include "ElementwiseRules.h"
#include "KilnTestContext.h"
#include "Reference/Interpreter.h"
#include "kiln/Compiler/Executable.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Trace/Trace.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <random>

using namespace kiln;

namespace {

constexpr llvm::StringLiteral kT = "tensor<3x5xf64>";

/// The ops that programs never write: -kiln-fuse makes them, after
/// -kiln-autodiff, so they need no VJP rule and no trace entry.
bool isMadeByFusion(llvm::StringRef name) {
  return name == "kiln.fusion_group" || name == "kiln.yield";
}

/// Ops that a pass forms from others, which nothing records directly.
bool isMadeByPass(llvm::StringRef name) {
  return isMadeByFusion(name) || name == "kiln.attention" ||
         name == "kiln.attention_grad";
}

/// The attention ops compute in f32 (their samples' results are f32).
bool isF32Only(llvm::StringRef name) {
  return name == "kiln.attention" || name == "kiln.attention_grad";
}

/// The elementwise ops whose TraceOps.def line makes a Python function
/// (kiln.<fn> and Tensor.<fn>, python/src/Functions.cpp).
llvm::StringMap<std::string> getPythonFunctions() {
  llvm::StringMap<std::string> functions;
#define KILN_TRACE_UNARY(Name, OpName, Function) functions[OpName] = #Function;
#define KILN_TRACE_UNARY_FLAG(Name, OpName, Function, Flag)                    \
  functions[OpName] = #Function;
#define KILN_TRACE_BINARY(Name, OpName, Function) functions[OpName] = #Function;
#include "kiln/Trace/TraceOps.def"
  return functions;
}

/// The elementwise ops that Python reaches by another name than a function
/// of their own, and the fuzzer by its own generator code rather than the
/// rule table.
llvm::StringMap<std::string> getPythonSpellings() {
  return {{"kiln.cmp", "the comparison operators (<, <=, ==, ...)"},
          {"kiln.select", "kiln.where"},
          {"kiln.convert", "Tensor.to(dtype)"}};
}

/// A sample: the function @f (f64, inputs in [0.5, 1.5)) and which of its
/// arguments are differentiated.
struct Sample {
  std::string function;
  std::vector<int64_t> wrt;
};

/// The written-out samples of the ops whose form the traits do not give.
llvm::StringMap<Sample> getWrittenSamples() {
  llvm::StringMap<Sample> samples;
  auto add = [&](llvm::StringRef name, llvm::StringRef function,
                 std::vector<int64_t> wrt) {
    samples[name] = Sample{function.str(), std::move(wrt)};
  };
  add("kiln.constant", R"(
    func.func @f(%x: tensor<3x5xf64>) -> tensor<3x5xf64> {
      %c = kiln.constant dense<0.75> : tensor<3x5xf64>
      %y = kiln.mul %x, %c : tensor<3x5xf64>
      return %y : tensor<3x5xf64>
    })",
      {0});
  add("kiln.cmp", R"(
    func.func @f(%x: tensor<3x5xf64>, %y: tensor<3x5xf64>) -> tensor<3x5xf64> {
      %m = kiln.cmp lt, %x, %y : tensor<3x5xf64>
      %r = kiln.select %m, %x, %y : tensor<3x5xi1>, tensor<3x5xf64>
      return %r : tensor<3x5xf64>
    })",
      {0, 1});
  add("kiln.select", R"(
    func.func @f(%x: tensor<3x5xf64>, %y: tensor<3x5xf64>) -> tensor<3x5xf64> {
      %m = kiln.cmp gt, %x, %y : tensor<3x5xf64>
      %r = kiln.select %m, %y, %x : tensor<3x5xi1>, tensor<3x5xf64>
      return %r : tensor<3x5xf64>
    })",
      {0, 1});
  add("kiln.convert", R"(
    func.func @f(%x: tensor<3x5xf64>) -> tensor<3x5xf64> {
      %h = kiln.convert %x : tensor<3x5xf64> -> tensor<3x5xf32>
      %e = kiln.mul %h, %h : tensor<3x5xf32>
      %r = kiln.convert %e : tensor<3x5xf32> -> tensor<3x5xf64>
      return %r : tensor<3x5xf64>
    })",
      {0});
  add("kiln.broadcast_in_dim", R"(
    func.func @f(%x: tensor<5xf64>) -> tensor<3x5xf64> {
      %b = kiln.broadcast_in_dim %x, dims = [1] : tensor<5xf64> -> tensor<3x5xf64>
      %r = kiln.mul %b, %b : tensor<3x5xf64>
      return %r : tensor<3x5xf64>
    })",
      {0});
  add("kiln.reshape", R"(
    func.func @f(%x: tensor<3x5xf64>) -> tensor<15xf64> {
      %r = kiln.reshape %x : tensor<3x5xf64> -> tensor<15xf64>
      %s = kiln.sin %r : tensor<15xf64>
      return %s : tensor<15xf64>
    })",
      {0});
  add("kiln.transpose", R"(
    func.func @f(%x: tensor<3x5xf64>) -> tensor<5x3xf64> {
      %t = kiln.transpose %x, perm = [1, 0] : tensor<3x5xf64> -> tensor<5x3xf64>
      %s = kiln.sin %t : tensor<5x3xf64>
      return %s : tensor<5x3xf64>
    })",
      {0});
  add("kiln.slice", R"(
    func.func @f(%x: tensor<3x5xf64>) -> tensor<2x3xf64> {
      %s = kiln.slice %x, offsets = [1, 1], sizes = [2, 3] : tensor<3x5xf64> -> tensor<2x3xf64>
      %r = kiln.mul %s, %s : tensor<2x3xf64>
      return %r : tensor<2x3xf64>
    })",
      {0});
  add("kiln.concat", R"(
    func.func @f(%x: tensor<3x5xf64>, %y: tensor<3x5xf64>) -> tensor<6x5xf64> {
      %c = kiln.concat %x, %y dim = 0 : tensor<3x5xf64>, tensor<3x5xf64> -> tensor<6x5xf64>
      %r = kiln.mul %c, %c : tensor<6x5xf64>
      return %r : tensor<6x5xf64>
    })",
      {0, 1});
  add("kiln.reduce_sum", R"(
    func.func @f(%x: tensor<3x5xf64>) -> tensor<3xf64> {
      %s = kiln.sin %x : tensor<3x5xf64>
      %r = kiln.reduce_sum %s, dims = [1] : tensor<3x5xf64> -> tensor<3xf64>
      return %r : tensor<3xf64>
    })",
      {0});
  add("kiln.reduce_max", R"(
    func.func @f(%x: tensor<3x5xf64>) -> tensor<5xf64> {
      %r = kiln.reduce_max %x, dims = [0] : tensor<3x5xf64> -> tensor<5xf64>
      return %r : tensor<5xf64>
    })",
      {0});
  add("kiln.matmul", R"(
    func.func @f(%x: tensor<3x5xf64>, %y: tensor<3x5xf64>) -> tensor<5x5xf64> {
      %m = kiln.matmul %x, %y {transpose_a = true} : tensor<3x5xf64>, tensor<3x5xf64> -> tensor<5x5xf64>
      return %m : tensor<5x5xf64>
    })",
      {0, 1});
  // Collectives over one rank (the CPU run's world, and the interpreter's
  // alone); CollectiveTest.cpp checks them over several ranks.
  add("kiln.all_reduce", R"(
    func.func @f(%x: tensor<3x5xf64>) -> tensor<3x5xf64> {
      %s = kiln.sin %x : tensor<3x5xf64>
      %r = kiln.all_reduce mean, %s group = 0 : tensor<3x5xf64>
      %m = kiln.all_reduce max, %r group = 0 : tensor<3x5xf64>
      %y = kiln.mul %m, %x : tensor<3x5xf64>
      return %y : tensor<3x5xf64>
    })",
      {0});
  add("kiln.all_gather", R"(
    func.func @f(%x: tensor<3x5xf64>) -> tensor<3x5xf64> {
      %s = kiln.sin %x : tensor<3x5xf64>
      %g = kiln.all_gather %s dim = 1 group = 0 : tensor<3x5xf64> -> tensor<3x5xf64>
      %y = kiln.mul %g, %x : tensor<3x5xf64>
      return %y : tensor<3x5xf64>
    })",
      {0});
  add("kiln.reduce_scatter", R"(
    func.func @f(%x: tensor<3x5xf64>) -> tensor<3x5xf64> {
      %s = kiln.sin %x : tensor<3x5xf64>
      %r = kiln.reduce_scatter mean, %s dim = 0 group = 0 : tensor<3x5xf64> -> tensor<3x5xf64>
      %t = kiln.reduce_scatter sum, %r dim = 1 group = 0 : tensor<3x5xf64> -> tensor<3x5xf64>
      %y = kiln.mul %t, %x : tensor<3x5xf64>
      return %y : tensor<3x5xf64>
    })",
      {0});
  // A gradient inside the function: its VJP is a second derivative.
  add("kiln.vjp", R"(
    func.func @g(%x: tensor<3x5xf64>) -> tensor<3x5xf64> {
      %s = kiln.sin %x : tensor<3x5xf64>
      %r = kiln.mul %s, %x : tensor<3x5xf64>
      return %r : tensor<3x5xf64>
    }
    func.func @f(%x: tensor<3x5xf64>, %ct: tensor<3x5xf64>) -> tensor<3x5xf64> {
      %d = kiln.vjp @g(%x, %ct) wrt [0] : (tensor<3x5xf64>, tensor<3x5xf64>) -> tensor<3x5xf64>
      return %d : tensor<3x5xf64>
    })",
      {0, 1});
  // Integer indices are made inside @f (inputs are f64): an index tensor
  // from constants, out-of-range and repeated entries included.
  add("kiln.take", R"(
    func.func @f(%w: tensor<4x3xf64>) -> tensor<2x3x3xf64> {
      %ids = kiln.constant dense<[[2, 0, 2], [3, 1, 0]]> : tensor<2x3xi64>
      %e = kiln.take %w, %ids dim = 0 : tensor<4x3xf64>, tensor<2x3xi64> -> tensor<2x3x3xf64>
      %r = kiln.mul %e, %e : tensor<2x3x3xf64>
      return %r : tensor<2x3x3xf64>
    })",
      {0});
  add("kiln.scatter_add", R"(
    func.func @f(%t: tensor<4x3xf64>, %u: tensor<5x3xf64>) -> tensor<4x3xf64> {
      %ids = kiln.constant dense<[2, 0, 2, 7, -1]> : tensor<5xi32>
      %s = kiln.scatter_add %t, %ids, %u dim = 0 : tensor<4x3xf64>, tensor<5xi32>, tensor<5x3xf64> -> tensor<4x3xf64>
      %r = kiln.mul %s, %s : tensor<4x3xf64>
      return %r : tensor<4x3xf64>
    })",
      {0, 1});
  add("kiln.argmax", R"(
    func.func @f(%x: tensor<3x5xf64>) -> tensor<3xf64> {
      %a = kiln.argmax %x dim = 1 : tensor<3x5xf64> -> tensor<3xi64>
      %i = kiln.convert %a : tensor<3xi64> -> tensor<3xf64>
      %m = kiln.reduce_max %x, dims = [1] : tensor<3x5xf64> -> tensor<3xf64>
      %r = kiln.mul %m, %i : tensor<3xf64>
      return %r : tensor<3xf64>
    })",
      {0});
  add("kiln.iota", R"(
    func.func @f(%x: tensor<3x5xf64>) -> tensor<3x5xf64> {
      %p = kiln.iota dim = 1 : tensor<3x5xi32>
      %f = kiln.convert %p : tensor<3x5xi32> -> tensor<3x5xf64>
      %r = kiln.mul %x, %f : tensor<3x5xf64>
      return %r : tensor<3x5xf64>
    })",
      {0});
  add("kiln.rng_uniform", R"(
    func.func @f(%x: tensor<3x5xf64>) -> tensor<3x5xf64> {
      %key = kiln.constant dense<[20261127, 12]> : tensor<2xi64>
      %u = kiln.rng_uniform %key : tensor<2xi64> -> tensor<3x5xf32>
      %f = kiln.convert %u : tensor<3x5xf32> -> tensor<3x5xf64>
      %r = kiln.mul %x, %f : tensor<3x5xf64>
      return %r : tensor<3x5xf64>
    })",
      {0});

  // Made by -kiln-fuse-attention (f32 only): every kind of score rewrite;
  // the gradient of the attention is its attention_grad, and that of
  // attention_grad (a second derivative) differentiates its decomposition.
  add("kiln.attention", R"(
    func.func @f(%q: tensor<2x5x3xf32>, %k: tensor<2x7x3xf32>, %v: tensor<2x7x4xf32>, %b: tensor<1x5x7xf32>) -> tensor<2x5x4xf32> {
      %scale = kiln.constant dense<0.5> : tensor<1x1x1xf32>
      %two = kiln.constant dense<2.0> : tensor<1x1x1xf32>
      %col = kiln.iota dim = 2 : tensor<1x5x7xi64>
      %row = kiln.iota dim = 1 : tensor<1x5x7xi64>
      %hide = kiln.cmp gt, %col, %row : tensor<1x5x7xi64>
      %keep = kiln.cmp le, %col, %row : tensor<1x5x7xi64>
      %low = kiln.constant dense<-1.0e+04> : tensor<1x1x1xf32>
      %o, %m, %l = kiln.attention %q, %k, %v score(%scale, %b, %hide, %low, %two : tensor<1x1x1xf32>, tensor<1x5x7xf32>, tensor<1x5x7xi1>, tensor<1x1x1xf32>, tensor<1x1x1xf32>) steps [0, 0, -1, 2, 1, -1, 6, 2, 3, 7, -1, -1, 4, 4, -1, 1, 4, -1, 3, 1, -1] : tensor<2x5x3xf32>, tensor<2x7x3xf32>, tensor<2x7x4xf32> -> tensor<2x5x4xf32>, tensor<2x5xf32>, tensor<2x5xf32>
      %o2, %m2, %l2 = kiln.attention %q, %k, %v score(%keep, %low : tensor<1x5x7xi1>, tensor<1x1x1xf32>) steps [5, 0, 1] : tensor<2x5x3xf32>, tensor<2x7x3xf32>, tensor<2x7x4xf32> -> tensor<2x5x4xf32>, tensor<2x5xf32>, tensor<2x5xf32>
      %r = kiln.add %o, %o2 : tensor<2x5x4xf32>
      return %r : tensor<2x5x4xf32>
    })",
      {0, 1, 2});
  add("kiln.attention_grad", R"(
    func.func @f(%q: tensor<2x5x3xf32>, %k: tensor<2x7x3xf32>, %v: tensor<2x7x4xf32>, %do: tensor<2x5x4xf32>) -> (tensor<2x5x3xf32>, tensor<2x7x3xf32>, tensor<2x7x4xf32>) {
      %scale = kiln.constant dense<0.5> : tensor<1x1x1xf32>
      %o, %m, %l = kiln.attention %q, %k, %v score(%scale : tensor<1x1x1xf32>) steps [0, 0, -1] : tensor<2x5x3xf32>, tensor<2x7x3xf32>, tensor<2x7x4xf32> -> tensor<2x5x4xf32>, tensor<2x5xf32>, tensor<2x5xf32>
      %dq, %dk, %dv = kiln.attention_grad %q, %k, %v, %o, %m, %l, %do score(%scale : tensor<1x1x1xf32>) steps [0, 0, -1] : tensor<2x5x3xf32>, tensor<2x7x3xf32>, tensor<2x7x4xf32>, tensor<2x5x4xf32>, tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5x4xf32> -> tensor<2x5x3xf32>, tensor<2x7x3xf32>, tensor<2x7x4xf32>
      return %dq, %dk, %dv : tensor<2x5x3xf32>, tensor<2x7x3xf32>, tensor<2x7x4xf32>
    })",
      {0, 1, 2, 3});

  // Made by -kiln-fuse; written out here so that the interpreter and the
  // lowering see them (no gradient: fusion runs after -kiln-autodiff).
  Sample fused{R"(
    func.func @f(%x: tensor<3x5xf64>, %y: tensor<3x5xf64>) -> tensor<3x5xf64> {
      %r = kiln.fusion_group %x, %y : (tensor<3x5xf64>, tensor<3x5xf64>) -> tensor<3x5xf64> {
      ^bb0(%a: tensor<3x5xf64>, %b: tensor<3x5xf64>):
        %m = kiln.mul %a, %b : tensor<3x5xf64>
        %t = kiln.tanh %m : tensor<3x5xf64>
        kiln.yield %t : tensor<3x5xf64>
      }
      return %r : tensor<3x5xf64>
    })",
               {}};
  samples["kiln.fusion_group"] = fused;
  samples["kiln.yield"] = fused;
  return samples;
}

class OpCoverageTest : public KilnTestContext {
protected:
  /// The sample of `name`, from its traits or written out; none if it has
  /// neither (a new op that needs one here).
  std::optional<Sample> getSample(mlir::RegisteredOperationName name) {
    auto it = written.find(name.getStringRef());
    if (it != written.end())
      return it->second;
    if (!name.hasTrait<mlir::OpTrait::Elementwise>())
      return std::nullopt;
    // A float op T -> T or T, T -> T, in its generic form with default
    // attributes.
    if (name.hasTrait<mlir::OpTrait::OneOperand>())
      return Sample{llvm::formatv(R"(
        func.func @f(%x: {0}) -> {0} {{
          %y = "{1}"(%x) : ({0}) -> {0}
          return %y : {0}
        })",
                                  kT, name.getStringRef())
                        .str(),
                    {0}};
    if (name.hasTrait<mlir::OpTrait::NOperands<2>::Impl>())
      return Sample{llvm::formatv(R"(
        func.func @f(%x: {0}, %y: {0}) -> {0} {{
          %z = "{1}"(%x, %y) : ({0}, {0}) -> {0}
          return %z : {0}
        })",
                                  kT, name.getStringRef())
                        .str(),
                    {0, 1}};
    return std::nullopt;
  }

  /// Random inputs in [0.5, 1.5) for every argument of `func` (f64, or f32
  /// where it takes f32).
  std::vector<HostTensor> makeInputs(mlir::func::FuncOp func) {
    std::uniform_real_distribution<double> dist(0.5, 1.5);
    std::vector<HostTensor> inputs;
    for (mlir::Type type : func.getArgumentTypes()) {
      auto tensor = mlir::cast<mlir::RankedTensorType>(type);
      HostTensor input(tensor.getElementType().isF32() ? DType::F32
                                                       : DType::F64,
                       tensor.getShape());
      for (int64_t i = 0; i < input.getNumElements(); ++i)
        input.setFromDouble(i, dist(rng));
      inputs.push_back(std::move(input));
    }
    return inputs;
  }

  /// Compiles @`entry` of `source` for the CPU, runs it on random inputs and
  /// compares it with the reference interpreter.
  void compileAndCompare(const std::string &source, llvm::StringRef entry,
                         double rtol, double atol) {
    if (!parse(source))
      return;
    auto func = module->lookupSymbol<mlir::func::FuncOp>(entry);
    ASSERT_TRUE(func);
    std::vector<HostTensor> inputs = makeInputs(func);
    auto expected = reference::evaluate(func, inputs);
    ASSERT_TRUE(static_cast<bool>(expected))
        << "interpreter: " << llvm::toString(expected.takeError());
    auto exe = Executable::compile(*module, entry);
    ASSERT_TRUE(static_cast<bool>(exe))
        << "lowering: " << llvm::toString(exe.takeError());
    auto got = (*exe)->run(inputs);
    ASSERT_TRUE(static_cast<bool>(got)) << llvm::toString(got.takeError());
    ASSERT_EQ(got->size(), expected->size());
    for (auto [out, want] : llvm::zip(*got, *expected)) {
      ASSERT_EQ(out.getShape(), want.getShape());
      for (int64_t i = 0; i < want.getNumElements(); ++i) {
        double a = out.getAsDouble(i), b = want.getAsDouble(i);
        EXPECT_NEAR(a, b, atol + rtol * std::abs(b)) << "element " << i;
      }
    }
  }

  llvm::StringMap<Sample> written = getWrittenSamples();
  llvm::StringMap<std::string> pythonFunctions = getPythonFunctions();
  llvm::StringMap<std::string> pythonSpellings = getPythonSpellings();
  std::mt19937 rng{13};
};

TEST_F(OpCoverageTest, EveryRegisteredOpThroughEveryLayer) {
  std::vector<mlir::RegisteredOperationName> ops;
  for (mlir::RegisteredOperationName name : context.getRegisteredOperations())
    if (name.getDialectNamespace() == "kiln")
      ops.push_back(name);
  ASSERT_GE(ops.size(), 36u) << "the kiln dialect is not loaded";

  for (mlir::RegisteredOperationName name : ops) {
    llvm::StringRef opName = name.getStringRef();
    SCOPED_TRACE(opName.str());

    // The trace table.
    bool inTable = llvm::any_of(getAllTraceOps(), [&](TraceOp op) {
      return getTraceOpName(op) == opName;
    });
    EXPECT_TRUE(inTable || isMadeByPass(opName))
        << opName.str() << " has no entry in TraceOps.def";

    // Elementwise ops have their scalar semantics.
    if (name.hasTrait<mlir::OpTrait::Elementwise>())
      EXPECT_TRUE(name.hasInterface<ScalarSemanticsOpInterface>())
          << opName.str() << " does not implement ScalarSemanticsOpInterface";

    // Python and the fuzzer.
    if (name.hasTrait<mlir::OpTrait::Elementwise>() &&
        !isMadeByFusion(opName)) {
      bool generated = pythonFunctions.count(opName);
      EXPECT_TRUE(generated || pythonSpellings.count(opName))
          << opName.str()
          << " reaches no Python function: give it a KILN_TRACE_UNARY or "
             "KILN_TRACE_BINARY line, or say how Python spells it";
      if (generated)
        EXPECT_TRUE(fuzz::findElementwiseRule(opName) != nullptr)
            << opName.str()
            << " has no rule in tools/kiln-fuzz-diff/ElementwiseRules.cpp";
    }

    std::optional<Sample> sample = getSample(name);
    ASSERT_TRUE(sample) << opName.str()
                        << " has no sample program in OpCoverageTest.cpp";

    // The interpreter and the lowering, against each other (f32 ops to
    // f32's precision).
    if (isF32Only(opName))
      compileAndCompare(sample->function, "f", 1e-5, 1e-6);
    else
      compileAndCompare(sample->function, "f", 1e-9, 1e-12);
    if (isMadeByFusion(opName))
      continue;

    // The VJP rule: the gradient of @f, compiled, against the interpreter's
    // finite differences of @f.
    if (!parse(sample->function))
      continue;
    auto f = module->lookupSymbol<mlir::func::FuncOp>("f");
    std::string argTypes, gradTypes, wrt;
    auto argTypeList = f.getArgumentTypes();
    auto resultTypeList = f.getResultTypes();
    std::string vjp = "func.func @vjp(";
    std::string operands;
    auto print = [](mlir::Type type) {
      std::string s;
      llvm::raw_string_ostream os(s);
      type.print(os);
      return s;
    };
    for (auto [i, type] : llvm::enumerate(argTypeList)) {
      vjp += (i ? ", %a" : "%a") + std::to_string(i) + ": " + print(type);
      operands += (i ? ", %a" : "%a") + std::to_string(i);
      argTypes += (i ? ", " : "") + print(type);
    }
    for (auto [i, type] : llvm::enumerate(resultTypeList)) {
      vjp += ", %c" + std::to_string(i) + ": " + print(type);
      operands += ", %c" + std::to_string(i);
      argTypes += ", " + print(type);
    }
    for (auto [i, index] : llvm::enumerate(sample->wrt)) {
      wrt += (i ? ", " : "") + std::to_string(index);
      gradTypes += (i ? ", " : "") + print(argTypeList[index]);
    }
    vjp += ") -> (" + gradTypes +
           ") {\n  %g:" + std::to_string(sample->wrt.size()) +
           " = kiln.vjp @f(" + operands + ") wrt [" + wrt + "] : (" + argTypes +
           ") -> (" + gradTypes + ")\n  return ";
    for (size_t i = 0; i < sample->wrt.size(); ++i)
      vjp += (i ? ", %g#" : "%g#") + std::to_string(i);
    vjp += " : " + gradTypes + "\n}\n";
    // Central differences are good to about 1e-9 here (see
    // test/Integration/autodiff/rules_f64.mlir), a second derivative (the
    // vjp sample) to about 1e-5; convert's gradient passes through f32.
    double tolerance = opName == "kiln.vjp"       ? 2e-5
                       : opName == "kiln.convert" ? 1e-6
                       : isF32Only(opName)        ? 1e-4
                                                  : 1e-7;
    compileAndCompare(sample->function + "\n" + vjp, "vjp", tolerance,
                      tolerance);
  }
}

} // namespace
