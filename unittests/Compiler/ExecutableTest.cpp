//===- ExecutableTest.cpp - the compiler facade ---------------------------===//
//
// Executable::compile for each device: options one device does not
// understand are refused, Auto resolves to a device that exists, CUDA
// compiles without a GPU. Runs compiled functions repeatedly and checks that
// every buffer they allocate is freed again, and that results are right.
//
//===----------------------------------------------------------------------===//

#include "kiln/Compiler/Executable.h"
#include "KilnTestContext.h"
#include "kiln_rt/kiln_rt.h"
#include "kiln_rt/kiln_rt_cuda.h"

#include <cmath>
#include <cstdlib>

using namespace kiln;

namespace {

class ExecutableTest : public KilnTestContext {
protected:
  std::unique_ptr<Executable> compile(llvm::StringRef source,
                                      const CompileOptions &options = {}) {
    if (!parse(source))
      return nullptr;
    auto exe = Executable::compile(*module, "main", options);
    if (!exe) {
      ADD_FAILURE() << llvm::toString(exe.takeError());
      return nullptr;
    }
    return std::move(*exe);
  }

  /// The error compiling `source` with `options` gives ("" if none).
  std::string compileError(llvm::StringRef source,
                           const CompileOptions &options) {
    if (!parse(source))
      return "";
    auto exe = Executable::compile(*module, "main", options);
    return exe ? "" : llvm::toString(exe.takeError());
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
TEST_F(ExecutableTest, RunsFreeTheirBuffers) {
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

// An optimizer's update and a product: the update may write its new
// parameter into the old one's buffer (one kernel reads each element before
// writing it, and nothing else reads it); the product may not overwrite its
// operand, which it reads while it writes. runInto writes the first in
// place and the second through a temporary: both give run()'s bits.
TEST_F(ExecutableTest, RunsIntoDonatedInputs) {
  auto exe = compile(R"mlir(
    func.func @main(%p: tensor<16x16xf32>, %g: tensor<16x16xf32>)
        -> (tensor<16x16xf32>, tensor<16x16xf32>) {
      %lr = kiln.constant dense<0.5> : tensor<16x16xf32>
      %s = kiln.mul %g, %lr : tensor<16x16xf32>
      %next = kiln.sub %p, %s : tensor<16x16xf32>
      %m = kiln.matmul %g, %g : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
      return %next, %m : tensor<16x16xf32>, tensor<16x16xf32>
    }
  )mlir");
  ASSERT_TRUE(exe);
  const DonationPlan &plan = exe->getDonation();
  ASSERT_EQ(plan.lastReads.size(), 2u);
  ASSERT_EQ(plan.firstWrites.size(), 2u);
  HostTensor p(DType::F32, {16, 16}), g(DType::F32, {16, 16});
  for (int64_t i = 0; i < p.getNumElements(); ++i) {
    p.setFromDouble(i, 0.25 * static_cast<double>(i % 13) - 1);
    g.setFromDouble(i, 0.125 * static_cast<double>(i % 7));
  }
  auto expected = exe->run({p, g});
  ASSERT_TRUE(static_cast<bool>(expected))
      << llvm::toString(expected.takeError());

  // Which other outputs may take which inputs depends on the kernels'
  // order; runInto must be right either way. Every (input, output):
  for (int input : {0, 1})
    for (int output : {0, 1}) {
      HostTensor donatedP = p, donatedG = g;
      HostTensor *donated = input == 0 ? &donatedP : &donatedG;
      void *buffer = donated->getData();
      std::vector<HostTensor *> into(2, nullptr);
      into[output] = donated;
      auto results = exe->runInto({&donatedP, &donatedG}, into);
      ASSERT_TRUE(static_cast<bool>(results))
          << llvm::toString(results.takeError());
      ASSERT_EQ(results->size(), 2u);
      // The destination keeps its buffer; its place in the results is
      // empty; the other result is new.
      EXPECT_EQ(donated->getData(), buffer);
      EXPECT_EQ((*results)[output].getData(), nullptr);
      const HostTensor &other = (*results)[1 - output];
      ASSERT_EQ(other.getNumElements(), 256);
      for (int64_t i = 0; i < 256; ++i) {
        ASSERT_EQ(donated->getAsDouble(i), (*expected)[output].getAsDouble(i))
            << "input " << input << " into output " << output << " at " << i;
        ASSERT_EQ(other.getAsDouble(i), (*expected)[1 - output].getAsDouble(i))
            << "input " << input << " into output " << output << " at " << i;
      }
    }
  // The update's elementwise kernel is the only reader of p and the first
  // writer of the new p: in place. The product reads g while writing.
  EXPECT_TRUE(plan.allows(0, 0));
  EXPECT_FALSE(plan.allows(1, 1));
  // Destinations of another rank or shape, or one too few, are refused
  // with what was expected.
  HostTensor wrongRank(DType::F32, {16}), wrongShape(DType::F32, {16, 8});
  for (HostTensor *wrong : {&wrongRank, &wrongShape}) {
    std::vector<HostTensor *> into = {wrong, nullptr};
    auto refused = exe->runInto({&p, &g}, into);
    ASSERT_FALSE(static_cast<bool>(refused));
    std::string message = llvm::toString(refused.takeError());
    EXPECT_NE(message.find(wrong->getTypeString()), std::string::npos)
        << message;
    EXPECT_NE(message.find("tensor<16x16xf32>"), std::string::npos) << message;
  }
  std::vector<HostTensor *> tooFew = {nullptr};
  auto refused = exe->runInto({&p, &g}, tooFew);
  ASSERT_FALSE(static_cast<bool>(refused));
  EXPECT_NE(llvm::toString(refused.takeError()).find("2 results, 1 "),
            std::string::npos);
}

constexpr llvm::StringLiteral kTanh = R"mlir(
  func.func @main(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
    %t = kiln.tanh %x : tensor<4x8xf32>
    %y = kiln.mul %t, %x : tensor<4x8xf32>
    return %y : tensor<4x8xf32>
  }
)mlir";

TEST_F(ExecutableTest, RefusesOptionsOfTheOtherDevice) {
  CompileOptions cuda;
  cuda.device = Device::Cuda;
  cuda.compileHostCode = true;
  EXPECT_EQ(compileError(kTanh, cuda),
            "compile option 'compileHostCode' applies to the cpu device, not "
            "to cuda");
  cuda.compileHostCode = false;
  cuda.objectDumpPath = "/tmp/kernels";
  EXPECT_EQ(compileError(kTanh, cuda),
            "compile option 'objectDumpPath' applies to the cpu device, not "
            "to cuda");
  CompileOptions cpu;
  cpu.chip = "sm_90";
  EXPECT_EQ(compileError(kTanh, cpu),
            "compile option 'chip' applies to the cuda device, not to cpu");
  cpu.chip.clear();
  cpu.libdevice = "/nonexistent/libdevice.10.bc";
  EXPECT_EQ(compileError(kTanh, cpu),
            "compile option 'libdevice' applies to the cuda device, not to "
            "cpu");
  cpu.libdevice.clear();
  cpu.autocast = DType::F64;
  EXPECT_EQ(compileError(kTanh, cpu),
            "compile option 'autocast' takes bf16 or f16, not f64");
}

// Compiling for CUDA needs no GPU; running says why it cannot. Auto,
// without a driver, is the CPU.
TEST_F(ExecutableTest, OneFacadeForBothDevices) {
  kiln_rt_cuda_shutdown();
  setenv("KILN_RT_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
  CompileOptions cuda;
  cuda.device = Device::Cuda;
  cuda.chip = "sm_90";
  auto gpu = compile(kTanh, cuda);
  ASSERT_TRUE(gpu);
  EXPECT_EQ(gpu->getDevice(), Device::Cuda);
  EXPECT_EQ(gpu->getEntryName(), "main");
  EXPECT_NE(gpu->getPtx().find(".target sm_90"), llvm::StringRef::npos);
  EXPECT_EQ(gpu->getStats().kernelLaunches, 1);
  HostTensor x(DType::F32, {4, 8});
  auto ran = gpu->run({x});
  ASSERT_FALSE(static_cast<bool>(ran));
  EXPECT_NE(llvm::toString(ran.takeError()).find("/nonexistent/libcuda.so.1"),
            std::string::npos);

  CompileOptions automatic;
  automatic.device = Device::Auto;
  auto cpu = compile(kTanh, automatic);
  ASSERT_TRUE(cpu);
  EXPECT_EQ(cpu->getDevice(), Device::Cpu);
  EXPECT_TRUE(cpu->getPtx().empty());
  for (int64_t i = 0; i < x.getNumElements(); ++i)
    x.setFromDouble(i, 0.1 * static_cast<double>(i) - 1.5);
  RunProfile profile;
  auto results = cpu->run({x}, &profile);
  ASSERT_TRUE(static_cast<bool>(results))
      << llvm::toString(results.takeError());
  for (int64_t i = 0; i < x.getNumElements(); ++i)
    EXPECT_NEAR((*results)[0].getAsDouble(i),
                std::tanh(x.getAsDouble(i)) * x.getAsDouble(i), 1e-6);
  EXPECT_EQ(profile.launches, 1);
  kiln_rt_cuda_shutdown();
  unsetenv("KILN_RT_LIBCUDA");
}

} // namespace
