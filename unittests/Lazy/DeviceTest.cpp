//===- DeviceTest.cpp - lazy tensors on the CUDA device -----------------===//
//
// Device selection, and materializing on the cuda device through the
// trace cache. Without a GPU, the device is a stand-in driver (device
// memory is host memory; kernels do not run) with a stand-in cuBLAS that
// computes, so matmul-only programs run end to end and are checked by
// value. A GPU runs everything through test/GPU.
//
//===----------------------------------------------------------------------===//

#include "Compiler/TraceCache.h"
#include "LazyTestHelpers.h"
#include "kiln_rt/kiln_rt_cuda.h"

#include <cstdlib>

using namespace kiln;

namespace {

class DeviceTest : public testing::Test {
protected:
  void useDriver(const char *driver, const char *cublas) {
    kiln_rt_cuda_shutdown();
    setenv("KILN_RT_LIBCUDA", driver, 1);
    setenv("KILN_RT_LIBCUBLAS", cublas, 1);
  }
  void TearDown() override {
    ASSERT_FALSE(static_cast<bool>(setDevice(Device::Cpu)));
    kiln_rt_cuda_shutdown();
    unsetenv("KILN_RT_LIBCUDA");
    unsetenv("KILN_RT_LIBCUBLAS");
  }
};

TEST_F(DeviceTest, CudaWithoutADriver) {
  useDriver("/nonexistent/libcuda.so.1", "/nonexistent/libcublas.so");
  llvm::Error error = setDevice(Device::Cuda);
  ASSERT_TRUE(static_cast<bool>(error));
  std::string message = llvm::toString(std::move(error));
  EXPECT_EQ(message.rfind("kiln: the cuda device is unavailable: dlopen "
                          "/nonexistent/libcuda.so.1: ",
                          0),
            0u)
      << message;
  EXPECT_EQ(getDevice(), Device::Cpu);
  // Auto picks the CPU, and programs run there.
  ASSERT_FALSE(static_cast<bool>(setDevice(Device::Auto)));
  EXPECT_EQ(getDevice(), Device::Cpu);
  EXPECT_EQ(values(input({2}, {1, 2}) * 3.0), (std::vector<float>{3, 6}));
}

TEST_F(DeviceTest, MatmulsOnTheCudaDevice) {
  useDriver(KILN_FAKE_CUDA_DRIVER, KILN_FAKE_CUBLAS);
  ASSERT_FALSE(static_cast<bool>(setDevice(Device::Cuda)));
  EXPECT_EQ(getDevice(), Device::Cuda);
  Tensor a = input({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor b = input({3, 2}, {1, 0, 0, 1, 1, 1});
  Tensor c = input({2, 3}, {1, 1, 1, 2, 2, 2});
  TraceCacheStats before = TraceCache::global().getStats();
  // a b, a c^T, and a batched product: cuBLAS calls only.
  Tensor ab = matmul(a, b);
  Tensor act = matmul(a, c, false, true);
  Tensor batched = matmul(reshape(a, {1, 2, 3}), reshape(b, {1, 3, 2}));
  ASSERT_FALSE(static_cast<bool>(sync({ab, act, batched})));
  EXPECT_EQ(values(ab), (std::vector<float>{4, 5, 10, 11}));
  EXPECT_EQ(values(act), (std::vector<float>{6, 12, 15, 30}));
  EXPECT_EQ(values(batched), (std::vector<float>{4, 5, 10, 11}));
  EXPECT_EQ(TraceCache::global().getStats().compiles, before.compiles + 1);

  // A program is cached per device: the same one on the CPU compiles
  // again, and each device's hits its own.
  auto product = [&] {
    return values(matmul(input({2, 3}, {1, 2, 3, 4, 5, 6}), b));
  };
  EXPECT_EQ(product(), (std::vector<float>{4, 5, 10, 11}));
  int64_t compiles = TraceCache::global().getStats().compiles;
  ASSERT_FALSE(static_cast<bool>(setDevice(Device::Cpu)));
  EXPECT_EQ(product(), (std::vector<float>{4, 5, 10, 11}));
  EXPECT_EQ(TraceCache::global().getStats().compiles, compiles + 1);
  ASSERT_FALSE(static_cast<bool>(setDevice(Device::Cuda)));
  EXPECT_EQ(product(), (std::vector<float>{4, 5, 10, 11}));
  EXPECT_EQ(TraceCache::global().getStats().compiles, compiles + 1);

  // After the runtime restarts, a cached executable loads its module
  // again: the old session's handles are gone.
  kiln_rt_cuda_shutdown();
  ASSERT_FALSE(static_cast<bool>(setDevice(Device::Cuda)));
  EXPECT_EQ(product(), (std::vector<float>{4, 5, 10, 11}));
  EXPECT_EQ(TraceCache::global().getStats().compiles, compiles + 1);
}

} // namespace
