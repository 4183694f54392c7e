//===- CpuExecutableTest.cpp - compiled functions and their buffers -------===//
//
// Runs compiled functions repeatedly and checks that every buffer they
// allocate is freed again, and that results are right.
//
//===----------------------------------------------------------------------===//

#include "kiln/Compiler/CpuExecutable.h"
#include "KilnTestContext.h"
#include "kiln_rt/kiln_rt.h"

#include <cmath>

using namespace kiln;

namespace {

class CpuExecutableTest : public KilnTestContext {
protected:
  std::unique_ptr<CpuExecutable> compile(llvm::StringRef source) {
    if (!parse(source))
      return nullptr;
    auto exe = CpuExecutable::compile(*module, "main");
    if (!exe) {
      ADD_FAILURE() << llvm::toString(exe.takeError());
      return nullptr;
    }
    return std::move(*exe);
  }

  static uint64_t liveBufferBytes() {
    kiln_rt_buffer_cache_stats stats;
    kiln_rt_buffer_cache_get_stats(&stats);
    return stats.live_bytes;
  }
};

// Intermediates of several kernels and a matmul, a view of one of them and
// a reduction: all are freed after each run, so repeated runs hold no more
// memory than the results the caller keeps.
TEST_F(CpuExecutableTest, RunsFreeTheirBuffers) {
  auto exe = compile(R"mlir(
    func.func @main(%x: tensor<64x32xf32>, %w: tensor<32x32xf32>)
        -> (tensor<64x16xf32>, tensor<32xf32>) {
      %t = kiln.tanh %x : tensor<64x32xf32>
      %m = kiln.matmul %t, %w : tensor<64x32xf32>, tensor<32x32xf32> -> tensor<64x32xf32>
      %e = kiln.exp %m : tensor<64x32xf32>
      %s = kiln.slice %e, offsets = [0, 8], sizes = [64, 16] : tensor<64x32xf32> -> tensor<64x16xf32>
      %r = kiln.reduce_sum %m, dims = [0] : tensor<64x32xf32> -> tensor<32xf32>
      return %s, %r : tensor<64x16xf32>, tensor<32xf32>
    }
  )mlir");
  ASSERT_TRUE(exe);
  HostTensor x(DType::F32, {64, 32}), w(DType::F32, {32, 32});
  for (int64_t i = 0; i < x.getNumElements(); ++i)
    x.setFromDouble(i, 0.01 * static_cast<double>(i % 37));
  for (int64_t i = 0; i < w.getNumElements(); ++i)
    w.setFromDouble(i, i % 33 == 0 ? 1.0 : 0.0); // the identity

  // The first run fills the cache; from then on the live bytes must come
  // back to the same level after every run.
  uint64_t before = 0;
  for (int run = 0; run < 5; ++run) {
    auto results = exe->run({x, w});
    ASSERT_TRUE(static_cast<bool>(results))
        << llvm::toString(results.takeError());
    ASSERT_EQ(results->size(), 2u);
    // w is the identity: the slice is exp(tanh(x)) at columns 8..23.
    const HostTensor &s = (*results)[0];
    for (int64_t row = 0; row < 64; row += 9)
      for (int64_t col = 0; col < 16; col += 5)
        EXPECT_NEAR(s.getAsDouble(row * 16 + col),
                    std::exp(std::tanh(x.getAsDouble(row * 32 + col + 8))),
                    1e-5);
    results->clear();
    if (run == 0)
      before = liveBufferBytes();
    EXPECT_EQ(liveBufferBytes(), before) << "run " << run;
  }
  // x and w themselves live in the cache too; nothing else does.
  EXPECT_EQ(before, x.getByteSize() + w.getByteSize() + 2 * 64);
}

} // namespace
