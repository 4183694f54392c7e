//===- GpuMapperTest.cpp - the GPU mapper's analyses on their own ---------===//
//
// -kiln-map-kernels-to-gpu's alias analysis (views as boxes of a root
// buffer, arguments that may share elements at some call) and its stage
// splitting (which of a kernel's ops may run in one launch), each on small
// hand-written kernels.
//
//===----------------------------------------------------------------------===//

#include "Codegen/GPU/BufferAliases.h"
#include "Codegen/GPU/StageSplitting.h"
#include "kiln/Pipelines/Pipelines.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace kiln::gpu_mapper;

namespace {

class GpuMapperTest : public ::testing::Test {
protected:
  GpuMapperTest() {
    DialectRegistry registry;
    kiln::registerAllKilnDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// Parses `source`; fails the test when it does not parse.
  bool parse(llvm::StringRef source) {
    module = parseSourceString<ModuleOp>(source, &context);
    if (!module)
      ADD_FAILURE() << "the test module does not parse";
    return static_cast<bool>(module);
  }

  func::FuncOp lookup(llvm::StringRef name) {
    return module->lookupSymbol<func::FuncOp>(name);
  }

  /// The value the op named by `tag` (a `tag` unit attribute) defines.
  Value tagged(llvm::StringRef tag) {
    Value found;
    module->walk([&](Operation *op) {
      if (op->hasAttr(tag) && op->getNumResults() == 1)
        found = op->getResult(0);
    });
    EXPECT_TRUE(found) << "no op tagged " << tag.str();
    return found;
  }

  /// The number of nests of each stage of `kernel`, or {} on failure.
  std::vector<size_t> stageSizes(func::FuncOp kernel,
                                 const ArgumentAliases &aliases) {
    FailureOr<llvm::SmallVector<Stage>> stages =
        splitIntoStages(kernel, aliases);
    if (failed(stages))
      return {};
    std::vector<size_t> sizes;
    for (const Stage &stage : *stages)
      sizes.push_back(stage.size());
    return sizes;
  }

  /// No aliases between `kernel`'s arguments.
  static ArgumentAliases distinct(func::FuncOp kernel) {
    return getArgumentAliases(kernel, {});
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

TEST_F(GpuMapperTest, ViewsAsBoxes) {
  ASSERT_TRUE(parse(R"mlir(
    func.func @views(%a: memref<8x8xf32>, %b: memref<8x8xf32>) {
      %top = memref.subview %a[0, 0] [4, 8] [1, 1] {top} : memref<8x8xf32> to memref<4x8xf32, strided<[8, 1]>>
      %bottom = memref.subview %a[4, 0] [4, 8] [1, 1] {bottom} : memref<8x8xf32> to memref<4x8xf32, strided<[8, 1], offset: 32>>
      %middle = memref.subview %a[2, 0] [4, 8] [1, 1] {middle} : memref<8x8xf32> to memref<4x8xf32, strided<[8, 1], offset: 16>>
      %corner = memref.subview %bottom[2, 4] [2, 4] [1, 1] {corner} : memref<4x8xf32, strided<[8, 1], offset: 32>> to memref<2x4xf32, strided<[8, 1], offset: 52>>
      %left = memref.subview %a[0, 0] [8, 4] [1, 1] {left} : memref<8x8xf32> to memref<8x4xf32, strided<[8, 1]>>
      %every2 = memref.subview %a[0, 0] [4, 8] [2, 1] {every2} : memref<8x8xf32> to memref<4x8xf32, strided<[16, 1]>>
      %flat = memref.collapse_shape %a [[0, 1]] {flat} : memref<8x8xf32> into memref<64xf32>
      %other = memref.subview %b[4, 0] [4, 8] [1, 1] {other} : memref<8x8xf32> to memref<4x8xf32, strided<[8, 1], offset: 32>>
      return
    }
  )mlir"));
  Value a = lookup("views").getArgument(0);
  Box top = getBox(tagged("top")), bottom = getBox(tagged("bottom"));
  EXPECT_EQ(top.root, a);
  ASSERT_TRUE(bottom.offsets && bottom.sizes);
  EXPECT_EQ(*bottom.offsets, (llvm::SmallVector<int64_t>{4, 0}));
  EXPECT_EQ(*bottom.sizes, (llvm::SmallVector<int64_t>{4, 8}));
  // Subviews of subviews compose.
  Box corner = getBox(tagged("corner"));
  EXPECT_EQ(corner.root, a);
  ASSERT_TRUE(corner.offsets);
  EXPECT_EQ(*corner.offsets, (llvm::SmallVector<int64_t>{6, 4}));

  EXPECT_FALSE(mayOverlap(top, bottom));
  EXPECT_TRUE(mayOverlap(top, getBox(tagged("middle"))));
  EXPECT_TRUE(mayOverlap(bottom, getBox(tagged("middle"))));
  EXPECT_FALSE(mayOverlap(top, corner));
  EXPECT_FALSE(mayOverlap(getBox(tagged("left")), corner));
  EXPECT_TRUE(mayOverlap(getBox(tagged("left")), top));
  // A strided subview, or a view of unknown extent, covers the whole root
  // as far as the analysis knows.
  Box every2 = getBox(tagged("every2")), flat = getBox(tagged("flat"));
  EXPECT_EQ(every2.root, a);
  EXPECT_FALSE(every2.offsets.has_value());
  EXPECT_TRUE(mayOverlap(every2, bottom));
  EXPECT_EQ(flat.root, a);
  EXPECT_FALSE(flat.offsets.has_value());
  EXPECT_TRUE(mayOverlap(flat, corner));
  // Different roots never share.
  EXPECT_FALSE(mayOverlap(getBox(tagged("other")), top));
  EXPECT_FALSE(mayOverlap(getBox(tagged("other")), flat));
}

constexpr llvm::StringLiteral kCallers = R"mlir(
  #id = affine_map<(d0, d1) -> (d0, d1)>
  func.func private @kernel(%x: memref<4x8xf32, strided<[8, 1], offset: ?>>,
                            %y: memref<4x8xf32, strided<[8, 1], offset: ?>>,
                            %z: memref<4x8xf32, strided<[8, 1], offset: ?>>) {
    return
  }
  func.func @apart(%a: memref<8x8xf32>, %c: memref<4x8xf32>) {
    %top = memref.subview %a[0, 0] [4, 8] [1, 1] : memref<8x8xf32> to memref<4x8xf32, strided<[8, 1]>>
    %bottom = memref.subview %a[4, 0] [4, 8] [1, 1] : memref<8x8xf32> to memref<4x8xf32, strided<[8, 1], offset: 32>>
    %t = memref.cast %top : memref<4x8xf32, strided<[8, 1]>> to memref<4x8xf32, strided<[8, 1], offset: ?>>
    %b = memref.cast %bottom : memref<4x8xf32, strided<[8, 1], offset: 32>> to memref<4x8xf32, strided<[8, 1], offset: ?>>
    %cc = memref.cast %c : memref<4x8xf32> to memref<4x8xf32, strided<[8, 1], offset: ?>>
    call @kernel(%t, %b, %cc) : (memref<4x8xf32, strided<[8, 1], offset: ?>>, memref<4x8xf32, strided<[8, 1], offset: ?>>, memref<4x8xf32, strided<[8, 1], offset: ?>>) -> ()
    return
  }
  func.func @same(%c: memref<4x8xf32>, %d: memref<4x8xf32>) {
    %cc = memref.cast %c : memref<4x8xf32> to memref<4x8xf32, strided<[8, 1], offset: ?>>
    %dd = memref.cast %d : memref<4x8xf32> to memref<4x8xf32, strided<[8, 1], offset: ?>>
    call @kernel(%cc, %dd, %cc) : (memref<4x8xf32, strided<[8, 1], offset: ?>>, memref<4x8xf32, strided<[8, 1], offset: ?>>, memref<4x8xf32, strided<[8, 1], offset: ?>>) -> ()
    return
  }
)mlir";

TEST_F(GpuMapperTest, ArgumentAliasesAtTheCalls) {
  ASSERT_TRUE(parse(kCallers));
  func::FuncOp kernel = lookup("kernel");
  llvm::SmallVector<func::CallOp> apart, same;
  lookup("apart").walk([&](func::CallOp call) { apart.push_back(call); });
  lookup("same").walk([&](func::CallOp call) { same.push_back(call); });

  // Two halves of one buffer and another buffer: nothing shared.
  ArgumentAliases aliases = getArgumentAliases(kernel, apart);
  ASSERT_EQ(aliases.size(), 3u);
  for (unsigned i = 0; i < 3; ++i)
    for (unsigned j = 0; j < 3; ++j)
      EXPECT_EQ(aliases[i].test(j), i == j) << i << ", " << j;

  // One call passing the same buffer twice makes those arguments aliases
  // for every call.
  llvm::SmallVector<func::CallOp> both(apart);
  both.append(same);
  aliases = getArgumentAliases(kernel, both);
  EXPECT_TRUE(aliases[0].test(2));
  EXPECT_TRUE(aliases[2].test(0));
  EXPECT_FALSE(aliases[0].test(1));
  EXPECT_FALSE(aliases[1].test(2));
}

constexpr llvm::StringLiteral kKernels = R"mlir(
  #id = affine_map<(d0) -> (d0)>
  #row = affine_map<(d0, d1) -> (d0, d1)>
  #first = affine_map<(d0, d1) -> (d0)>
  // Two independent elementwise ops: one launch.
  func.func @independent(%x: memref<64xf32>, %y: memref<64xf32>, %u: memref<64xf32>, %v: memref<64xf32>) {
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : memref<64xf32>) outs(%y : memref<64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %e = math.exp %in : f32
      linalg.yield %e : f32
    }
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%u : memref<64xf32>) outs(%v : memref<64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %e = math.tanh %in : f32
      linalg.yield %e : f32
    }
    return
  }
  // The second reads what the first wrote: every thread must see all of
  // it, so a second launch.
  func.func @chain(%x: memref<64xf32>, %t: memref<64xf32>, %y: memref<64xf32>) {
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : memref<64xf32>) outs(%t : memref<64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %e = math.exp %in : f32
      linalg.yield %e : f32
    }
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%t : memref<64xf32>) outs(%y : memref<64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %e = math.tanh %in : f32
      linalg.yield %e : f32
    }
    return
  }
  // The second overwrites what the first read.
  func.func @overwrite(%x: memref<64xf32>, %y: memref<64xf32>) {
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : memref<64xf32>) outs(%y : memref<64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %e = math.exp %in : f32
      linalg.yield %e : f32
    }
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%y : memref<64xf32>) outs(%x : memref<64xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    }
    return
  }
  // A fill and the row sum it initializes: one nest, one launch.
  func.func @fill_reduce(%x: memref<8x64xf32>, %s: memref<8xf32>) {
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%s : memref<8xf32>)
    linalg.generic {indexing_maps = [#row, #first], iterator_types = ["parallel", "reduction"]} ins(%x : memref<8x64xf32>) outs(%s : memref<8xf32>) {
    ^bb0(%in: f32, %acc: f32):
      %a = arith.addf %in, %acc : f32
      linalg.yield %a : f32
    }
    return
  }
  // Independent as written, unless the calls pass one buffer for %y and %u.
  func.func @maybe(%x: memref<64xf32>, %y: memref<64xf32>, %u: memref<64xf32>, %v: memref<64xf32>) {
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : memref<64xf32>) outs(%y : memref<64xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    }
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%u : memref<64xf32>) outs(%v : memref<64xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    }
    return
  }
)mlir";

TEST_F(GpuMapperTest, StagesEndWhereTheGridMustWait) {
  ASSERT_TRUE(parse(kKernels));
  EXPECT_EQ(stageSizes(lookup("independent"), distinct(lookup("independent"))),
            (std::vector<size_t>{2}));
  EXPECT_EQ(stageSizes(lookup("chain"), distinct(lookup("chain"))),
            (std::vector<size_t>{1, 1}));
  EXPECT_EQ(stageSizes(lookup("overwrite"), distinct(lookup("overwrite"))),
            (std::vector<size_t>{1, 1}));

  func::FuncOp fillReduce = lookup("fill_reduce");
  FailureOr<llvm::SmallVector<Stage>> stages =
      splitIntoStages(fillReduce, distinct(fillReduce));
  ASSERT_TRUE(succeeded(stages));
  ASSERT_EQ(stages->size(), 1u);
  ASSERT_EQ((*stages)[0].size(), 1u);
  const Nest &nest = (*stages)[0][0];
  EXPECT_TRUE(nest.fill);
  EXPECT_EQ(nest.fillOutput, 0u);
  EXPECT_EQ(linalg::LinalgOp(nest.op).getNumReductionLoops(), 1u);

  func::FuncOp maybe = lookup("maybe");
  EXPECT_EQ(stageSizes(maybe, distinct(maybe)), (std::vector<size_t>{2}));
  ArgumentAliases shared = distinct(maybe);
  shared[1].set(2);
  shared[2].set(1);
  EXPECT_EQ(stageSizes(maybe, shared), (std::vector<size_t>{1, 1}));
}

TEST_F(GpuMapperTest, RefusesWhatCannotRunInAKernel) {
  ASSERT_TRUE(parse(R"mlir(
    #id = affine_map<(d0) -> (d0)>
    func.func @on_tensors(%x: tensor<8xf32>, %y: memref<8xf32>) {
      %e = tensor.empty() : tensor<8xf32>
      %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
      ^bb0(%in: f32, %out: f32):
        linalg.yield %in : f32
      } -> tensor<8xf32>
      return
    }
  )mlir"));
  std::string message;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    message = diag.str();
    return success();
  });
  func::FuncOp kernel = lookup("on_tensors");
  EXPECT_TRUE(failed(splitIntoStages(kernel, distinct(kernel))));
  EXPECT_EQ(message, "a kernel op on tensors cannot run on the GPU");
}

} // namespace
