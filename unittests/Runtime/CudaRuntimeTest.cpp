//===- CudaRuntimeTest.cpp - the CUDA runtime without a GPU -------------===//
//
// Every entry point before init, a missing driver, and a failing driver,
// each with the message naming the failing call; then the runtime's own
// logic on a stand-in driver (FakeCudaDriver.c): device queries, modules
// cached by content, functions by name, the caching allocator, copies,
// launches and events. A real GPU runs kiln's GPU integration tests.
//
//===----------------------------------------------------------------------===//

#include "RuntimeStatus.h"
#include "kiln_rt/kiln_rt_cuda.h"

#include "gtest/gtest.h"

#include <dlfcn.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <tuple>
#include <vector>

namespace {

using kiln::test::Status;
using kiln::test::take;

/// Points the runtime at `library` (nullptr: the real libcuda.so.1) for
/// one test, and shuts it down after.
class CudaRuntimeTest : public testing::Test {
protected:
  void useDriver(const char *library) {
    kiln_rt_cuda_shutdown();
    if (library)
      setenv("KILN_RT_LIBCUDA", library, 1);
    else
      unsetenv("KILN_RT_LIBCUDA");
  }
  void TearDown() override {
    kiln_rt_cuda_shutdown();
    unsetenv("KILN_RT_LIBCUDA");
    unsetenv("FAKE_CUDA_FAIL");
    unsetenv("FAKE_CUDA_FAIL_CODE");
    unsetenv("FAKE_CUDA_FAIL_COUNT");
    unsetenv("KILN_RT_LIBCUBLAS");
  }
  /// A global of the fake driver (loaded by the runtime).
  template <typename T> T *fakeGlobal(const char *name) {
    void *handle = dlopen(KILN_FAKE_CUDA_DRIVER, RTLD_NOW | RTLD_NOLOAD);
    EXPECT_NE(handle, nullptr);
    T *symbol = handle ? static_cast<T *>(dlsym(handle, name)) : nullptr;
    if (handle)
      dlclose(handle);
    return symbol;
  }
};

TEST_F(CudaRuntimeTest, EveryCallBeforeInitFails) {
  useDriver(nullptr);
  void *ptr = reinterpret_cast<void *>(0x1000);
  int count = 0;
  kiln_rt_cuda_device_info info;
  kiln_rt_cuda_module *module = nullptr;
  kiln_rt_cuda_function *function = nullptr;
  kiln_rt_cuda_stream *stream = nullptr;
  kiln_rt_cuda_event *event = nullptr;
  float ms;
  unsigned dims[3] = {1, 1, 1};
  char host[16];
  struct Call {
    const char *name;
    Status status;
  } calls[] = {
      {"kiln_rt_cuda_device_count", take(kiln_rt_cuda_device_count(&count))},
      {"kiln_rt_cuda_device_get_info",
       take(kiln_rt_cuda_device_get_info(&info))},
      {"kiln_rt_cuda_module_load",
       take(kiln_rt_cuda_module_load(".version 7.0", 12, &module))},
      {"kiln_rt_cuda_module_get_function",
       take(kiln_rt_cuda_module_get_function(module, "k", &function))},
      {"kiln_rt_cuda_malloc", take(kiln_rt_cuda_malloc(16, &ptr))},
      {"kiln_rt_cuda_free", take(kiln_rt_cuda_free(ptr))},
      {"kiln_rt_cuda_trim", take(kiln_rt_cuda_trim())},
      {"kiln_rt_cuda_stream_create", take(kiln_rt_cuda_stream_create(&stream))},
      {"kiln_rt_cuda_stream_synchronize",
       take(kiln_rt_cuda_stream_synchronize(nullptr))},
      {"kiln_rt_cuda_copy_to_device",
       take(kiln_rt_cuda_copy_to_device(ptr, host, 16, nullptr))},
      {"kiln_rt_cuda_copy_to_host",
       take(kiln_rt_cuda_copy_to_host(host, ptr, 16, nullptr))},
      {"kiln_rt_cuda_copy_device",
       take(kiln_rt_cuda_copy_device(ptr, ptr, 16, nullptr))},
      {"kiln_rt_cuda_memset_zero",
       take(kiln_rt_cuda_memset_zero(ptr, 16, nullptr))},
      {"kiln_rt_cuda_launch",
       take(kiln_rt_cuda_launch(function, dims, dims, 0, nullptr, nullptr))},
      {"kiln_rt_cuda_event_create", take(kiln_rt_cuda_event_create(&event))},
      {"kiln_rt_cuda_event_record",
       take(kiln_rt_cuda_event_record(event, nullptr))},
      {"kiln_rt_cuda_event_elapsed_ms",
       take(kiln_rt_cuda_event_elapsed_ms(event, event, &ms))},
      {"kiln_rt_cuda_synchronize", take(kiln_rt_cuda_synchronize())},
  };
  for (const Call &call : calls) {
    EXPECT_EQ(call.status, KILN_RT_UNAVAILABLE) << call.name;
  }
  // The message names the call and says what to do.
  Status failure = take(kiln_rt_cuda_synchronize());
  EXPECT_EQ(failure, KILN_RT_UNAVAILABLE);
  EXPECT_EQ(failure.message,
            "kiln_rt_cuda_synchronize: the CUDA runtime is not "
            "initialized (call kiln_rt_cuda_init first)");
  EXPECT_FALSE(kiln_rt_cuda_is_initialized());
  // Freeing NULL and destroying nothing are no-ops, as free() is.
  EXPECT_EQ(take(kiln_rt_cuda_free(nullptr)), KILN_RT_OK);
  EXPECT_EQ(take(kiln_rt_cuda_stream_destroy(nullptr)), KILN_RT_OK);
  EXPECT_EQ(take(kiln_rt_cuda_event_destroy(nullptr)), KILN_RT_OK);
}

TEST_F(CudaRuntimeTest, MissingDriver) {
  useDriver("/nonexistent/libcuda.so.1");
  Status failure = take(kiln_rt_cuda_init());
  EXPECT_EQ(failure, KILN_RT_UNAVAILABLE);
  std::string why = failure.message;
  EXPECT_EQ(why.rfind("dlopen /nonexistent/libcuda.so.1: ", 0), 0u) << why;
  EXPECT_NE(why.find("(is an NVIDIA driver installed?)"), std::string::npos);
  // The failure is remembered, and later calls say why.
  failure = take(kiln_rt_cuda_init());
  EXPECT_EQ(failure, KILN_RT_UNAVAILABLE);
  EXPECT_EQ(failure.message, why);
  void *ptr;
  failure = take(kiln_rt_cuda_malloc(4, &ptr));
  EXPECT_EQ(failure, KILN_RT_UNAVAILABLE);
  EXPECT_EQ(failure.message,
            "kiln_rt_cuda_malloc: the CUDA runtime is not available: " + why);
}

// This machine's own driver: a clean failure without one, a working
// device with one.
TEST_F(CudaRuntimeTest, ThisMachinesDriver) {
  useDriver(nullptr);
  Status status = take(kiln_rt_cuda_init());
  if (status != KILN_RT_OK) {
    EXPECT_EQ(status, KILN_RT_UNAVAILABLE);
    EXPECT_FALSE(status.message.empty());
    return;
  }
  kiln_rt_cuda_device_info info;
  ASSERT_EQ(take(kiln_rt_cuda_device_get_info(&info)), KILN_RT_OK);
  EXPECT_GT(info.multiprocessors, 0);
  EXPECT_EQ(info.warp_size, 32);
}

TEST_F(CudaRuntimeTest, FailingDriverCallsAreNamed) {
  useDriver(KILN_FAKE_CUDA_DRIVER);
  setenv("FAKE_CUDA_FAIL", "cuInit", 1);
  setenv("FAKE_CUDA_FAIL_CODE", "100", 1);
  Status failure = take(kiln_rt_cuda_init());
  EXPECT_EQ(failure, KILN_RT_UNAVAILABLE);
  EXPECT_EQ(
      failure.message,
      "cuInit: CUDA_ERROR_NO_DEVICE (no CUDA-capable device is detected)");

  useDriver(KILN_FAKE_CUDA_DRIVER);
  setenv("FAKE_CUDA_FAIL", "cuMemAlloc_v2", 1);
  setenv("FAKE_CUDA_FAIL_CODE", "2", 1);
  ASSERT_EQ(take(kiln_rt_cuda_init()), KILN_RT_OK);
  void *ptr = nullptr;
  failure = take(kiln_rt_cuda_malloc(100, &ptr));
  EXPECT_EQ(failure, KILN_RT_OUT_OF_MEMORY);
  EXPECT_EQ(failure.message,
            "out of device memory: 100 bytes requested, 0 bytes in use "
            "(cuMemAlloc_v2: CUDA_ERROR_OUT_OF_MEMORY (out of "
            "memory))");
  EXPECT_EQ(ptr, nullptr);

  setenv("FAKE_CUDA_FAIL", "cuLaunchKernel", 1);
  setenv("FAKE_CUDA_FAIL_CODE", "700", 1);
  const char ptx[] = ".version 7.0\n.visible .entry k(\n)\n";
  kiln_rt_cuda_module *module;
  kiln_rt_cuda_function *function;
  ASSERT_EQ(take(kiln_rt_cuda_module_load(ptx, sizeof(ptx) - 1, &module)),
            KILN_RT_OK);
  ASSERT_EQ(take(kiln_rt_cuda_module_get_function(module, "k", &function)),
            KILN_RT_OK);
  unsigned dims[3] = {1, 1, 1};
  failure =
      take(kiln_rt_cuda_launch(function, dims, dims, 0, nullptr, nullptr));
  EXPECT_EQ(failure, KILN_RT_DEVICE_ERROR);
  EXPECT_EQ(failure.message, "cuLaunchKernel: CUDA_ERROR_ILLEGAL_ADDRESS (an "
                             "illegal memory access was encountered) (kernel "
                             "\"k\")");
}

TEST_F(CudaRuntimeTest, DeviceAndModules) {
  useDriver(KILN_FAKE_CUDA_DRIVER);
  ASSERT_EQ(take(kiln_rt_cuda_init()), KILN_RT_OK);
  EXPECT_TRUE(kiln_rt_cuda_is_initialized());
  EXPECT_EQ(take(kiln_rt_cuda_init()), KILN_RT_OK); // idempotent
  int count = 0;
  ASSERT_EQ(take(kiln_rt_cuda_device_count(&count)), KILN_RT_OK);
  EXPECT_EQ(count, 1);
  kiln_rt_cuda_device_info info;
  ASSERT_EQ(take(kiln_rt_cuda_device_get_info(&info)), KILN_RT_OK);
  EXPECT_EQ(std::string(info.name), "kiln fake device 0");
  EXPECT_EQ(info.compute_major, 8);
  EXPECT_EQ(info.compute_minor, 0);
  EXPECT_EQ(info.multiprocessors, 108);
  EXPECT_EQ(info.total_memory_bytes, uint64_t(40) << 30);

  // One load per content; one lookup per function.
  std::string ptx = ".version 7.0\n.visible .entry add(\n)\n"
                    ".visible .entry mul(\n)\n";
  std::string same = ptx; // another buffer, equal content
  kiln_rt_cuda_module *a, *b, *c;
  ASSERT_EQ(take(kiln_rt_cuda_module_load(ptx.c_str(), ptx.size(), &a)),
            KILN_RT_OK);
  ASSERT_EQ(take(kiln_rt_cuda_module_load(same.c_str(), same.size(), &b)),
            KILN_RT_OK);
  EXPECT_EQ(a, b);
  std::string other = ptx + "// another module\n";
  ASSERT_EQ(take(kiln_rt_cuda_module_load(other.c_str(), other.size(), &c)),
            KILN_RT_OK);
  EXPECT_NE(a, c);
  EXPECT_EQ(*fakeGlobal<int>("fake_cuda_modules_loaded"), 2);
  kiln_rt_cuda_function *add1, *add2, *mul;
  ASSERT_EQ(take(kiln_rt_cuda_module_get_function(a, "add", &add1)),
            KILN_RT_OK);
  ASSERT_EQ(take(kiln_rt_cuda_module_get_function(a, "add", &add2)),
            KILN_RT_OK);
  ASSERT_EQ(take(kiln_rt_cuda_module_get_function(a, "mul", &mul)), KILN_RT_OK);
  EXPECT_EQ(add1, add2);
  EXPECT_NE(add1, mul);
  kiln_rt_cuda_module_stats stats;
  kiln_rt_cuda_get_module_stats(&stats);
  EXPECT_EQ(stats.loads, 2u);
  EXPECT_EQ(stats.load_hits, 1u);
  EXPECT_EQ(stats.functions, 2u);
  EXPECT_EQ(stats.function_hits, 1u);

  // Errors name the call, and what the JIT said.
  kiln_rt_cuda_function *missing;
  Status failure = take(kiln_rt_cuda_module_get_function(a, "sub", &missing));
  EXPECT_EQ(failure, KILN_RT_INVALID_ARGUMENT);
  EXPECT_EQ(failure.message,
            "cuModuleGetFunction: CUDA_ERROR_NOT_FOUND (named "
            "symbol not found): no kernel \"sub\" in the module");
  const char bad[] = "not ptx";
  kiln_rt_cuda_module *broken;
  failure = take(kiln_rt_cuda_module_load(bad, sizeof(bad) - 1, &broken));
  EXPECT_EQ(failure, KILN_RT_DEVICE_ERROR);
  EXPECT_EQ(failure.message,
            "cuModuleLoadDataEx: CUDA_ERROR_INVALID_PTX (a PTX "
            "JIT compilation failed): ptxas fatal: no .version "
            "directive");
  EXPECT_EQ(take(kiln_rt_cuda_module_load(bad, 3, &broken)),
            KILN_RT_INVALID_ARGUMENT); // not NUL-terminated at size

  // Shutdown unloads every module and releases the context.
  kiln_rt_cuda_shutdown();
  EXPECT_FALSE(kiln_rt_cuda_is_initialized());
}

TEST_F(CudaRuntimeTest, CachingAllocator) {
  useDriver(KILN_FAKE_CUDA_DRIVER);
  ASSERT_EQ(take(kiln_rt_cuda_init()), KILN_RT_OK);
  int *driverBlocks = fakeGlobal<int>("fake_cuda_allocations");
  void *a, *b, *c, *zero;
  ASSERT_EQ(take(kiln_rt_cuda_malloc(1000, &a)), KILN_RT_OK);
  ASSERT_EQ(take(kiln_rt_cuda_malloc(3 << 20, &b)), KILN_RT_OK);
  ASSERT_EQ(take(kiln_rt_cuda_malloc(0, &zero)), KILN_RT_OK);
  EXPECT_EQ(zero, nullptr);
  kiln_rt_cuda_memory_stats stats;
  kiln_rt_cuda_get_memory_stats(&stats);
  // 1000 bytes -> 1024 (512-byte classes); 3 MiB -> 4 MiB (2 MiB classes).
  EXPECT_EQ(stats.live_bytes, 1024u + (4u << 20));
  EXPECT_EQ(stats.misses, 2u);
  EXPECT_EQ(*driverBlocks, 2);

  ASSERT_EQ(take(kiln_rt_cuda_free(a)), KILN_RT_OK);
  // A block of the same class comes back from the cache.
  ASSERT_EQ(take(kiln_rt_cuda_malloc(1020, &c)), KILN_RT_OK);
  EXPECT_EQ(c, a);
  kiln_rt_cuda_get_memory_stats(&stats);
  EXPECT_EQ(stats.hits, 1u);
  EXPECT_EQ(*driverBlocks, 2);
  ASSERT_EQ(take(kiln_rt_cuda_free(c)), KILN_RT_OK);
  ASSERT_EQ(take(kiln_rt_cuda_free(b)), KILN_RT_OK);
  kiln_rt_cuda_get_memory_stats(&stats);
  EXPECT_EQ(stats.live_bytes, 0u);
  EXPECT_EQ(stats.cached_bytes, 1024u + (4u << 20));
  EXPECT_EQ(stats.peak_bytes, 1024u + (4u << 20));

  // Freeing twice, or what it never gave out, is an error.
  Status failure = take(kiln_rt_cuda_free(b));
  EXPECT_EQ(failure, KILN_RT_INVALID_ARGUMENT);
  EXPECT_NE(failure.message.find("was not allocated by kiln_rt_cuda_malloc, or "
                                 "was freed already"),
            std::string::npos);

  // When the driver runs out, the cache is given back and the allocation
  // retried.
  setenv("FAKE_CUDA_FAIL", "cuMemAlloc_v2", 1);
  setenv("FAKE_CUDA_FAIL_COUNT", "1", 1);
  void *d;
  ASSERT_EQ(take(kiln_rt_cuda_malloc(5000, &d)), KILN_RT_OK);
  EXPECT_EQ(*driverBlocks, 1);
  kiln_rt_cuda_get_memory_stats(&stats);
  EXPECT_EQ(stats.cached_bytes, 0u);
  EXPECT_EQ(stats.live_bytes, 5120u);
  unsetenv("FAKE_CUDA_FAIL");
  ASSERT_EQ(take(kiln_rt_cuda_free(d)), KILN_RT_OK);
  ASSERT_EQ(take(kiln_rt_cuda_trim()), KILN_RT_OK);
  EXPECT_EQ(*driverBlocks, 0);
}

TEST_F(CudaRuntimeTest, CopiesLaunchesEvents) {
  useDriver(KILN_FAKE_CUDA_DRIVER);
  ASSERT_EQ(take(kiln_rt_cuda_init()), KILN_RT_OK);
  kiln_rt_cuda_stream *stream;
  ASSERT_EQ(take(kiln_rt_cuda_stream_create(&stream)), KILN_RT_OK);
  std::vector<float> in = {1, 2, 3, 4}, out(4, 0);
  void *device, *copy;
  ASSERT_EQ(take(kiln_rt_cuda_malloc(16, &device)), KILN_RT_OK);
  ASSERT_EQ(take(kiln_rt_cuda_malloc(16, &copy)), KILN_RT_OK);
  ASSERT_EQ(take(kiln_rt_cuda_copy_to_device(device, in.data(), 16, stream)),
            KILN_RT_OK);
  ASSERT_EQ(take(kiln_rt_cuda_copy_device(copy, device, 16, stream)),
            KILN_RT_OK);
  ASSERT_EQ(take(kiln_rt_cuda_copy_to_host(out.data(), copy, 16, stream)),
            KILN_RT_OK);
  ASSERT_EQ(take(kiln_rt_cuda_stream_synchronize(stream)), KILN_RT_OK);
  EXPECT_EQ(out, in);
  ASSERT_EQ(take(kiln_rt_cuda_memset_zero(copy, 16, stream)), KILN_RT_OK);
  ASSERT_EQ(take(kiln_rt_cuda_copy_to_host(out.data(), copy, 16, stream)),
            KILN_RT_OK);
  EXPECT_EQ(out, std::vector<float>(4, 0));
  Status failure = take(kiln_rt_cuda_copy_to_host(nullptr, copy, 16, stream));
  EXPECT_EQ(failure, KILN_RT_INVALID_ARGUMENT);
  EXPECT_EQ(failure.message,
            "kiln_rt_cuda_copy_to_host: a NULL pointer for 16 bytes");

  const char ptx[] = ".version 7.0\n.visible .entry scale(\n)\n";
  kiln_rt_cuda_module *module;
  kiln_rt_cuda_function *scale;
  ASSERT_EQ(take(kiln_rt_cuda_module_load(ptx, sizeof(ptx) - 1, &module)),
            KILN_RT_OK);
  ASSERT_EQ(take(kiln_rt_cuda_module_get_function(module, "scale", &scale)),
            KILN_RT_OK);
  unsigned grid[3] = {40, 1, 1}, block[3] = {256, 1, 1};
  void *params[] = {&device};
  kiln_rt_cuda_event *start, *end;
  ASSERT_EQ(take(kiln_rt_cuda_event_create(&start)), KILN_RT_OK);
  ASSERT_EQ(take(kiln_rt_cuda_event_create(&end)), KILN_RT_OK);
  ASSERT_EQ(take(kiln_rt_cuda_event_record(start, stream)), KILN_RT_OK);
  ASSERT_EQ(take(kiln_rt_cuda_launch(scale, grid, block, 0, stream, params)),
            KILN_RT_OK);
  ASSERT_EQ(take(kiln_rt_cuda_event_record(end, stream)), KILN_RT_OK);
  float ms = 0;
  ASSERT_EQ(take(kiln_rt_cuda_event_elapsed_ms(start, end, &ms)), KILN_RT_OK);
  EXPECT_FLOAT_EQ(ms, 1.5f);
  unsigned *launch = fakeGlobal<unsigned>("fake_cuda_last_launch");
  EXPECT_EQ(launch[0], 40u);
  EXPECT_EQ(launch[3], 256u);
  unsigned empty[3] = {0, 1, 1};
  failure = take(kiln_rt_cuda_launch(scale, empty, block, 0, stream, params));
  EXPECT_EQ(failure, KILN_RT_INVALID_ARGUMENT);
  EXPECT_EQ(failure.message,
            "kiln_rt_cuda_launch: \"scale\" with an empty grid "
            "(0, 1, 1) or block (256, 1, 1)");
  EXPECT_EQ(take(kiln_rt_cuda_event_destroy(start)), KILN_RT_OK);
  EXPECT_EQ(take(kiln_rt_cuda_event_destroy(end)), KILN_RT_OK);
  EXPECT_EQ(take(kiln_rt_cuda_stream_destroy(stream)), KILN_RT_OK);
  EXPECT_EQ(take(kiln_rt_cuda_synchronize()), KILN_RT_OK);
}

// Row-major products through cuBLAS's column-major interface, checked by
// value on a stand-in that computes: every transpose combination, leading
// dims wider than the rows, a batch, and accumulation (beta = 1).
TEST_F(CudaRuntimeTest, GemmMapsRowMajorToCublas) {
  useDriver(KILN_FAKE_CUDA_DRIVER);
  setenv("KILN_RT_LIBCUBLAS", KILN_FAKE_CUBLAS, 1);
  ASSERT_EQ(take(kiln_rt_cuda_init()), KILN_RT_OK);
  ASSERT_TRUE(kiln_rt_cuda_blas_available());
  const int64_t m = 3, n = 5, k = 4, batch = 2, pad = 2;
  for (int ta = 0; ta < 2; ++ta)
    for (int tb = 0; tb < 2; ++tb)
      for (double beta : {0.0, 1.0}) {
        SCOPED_TRACE(testing::Message()
                     << "ta " << ta << " tb " << tb << " beta " << beta);
        // Stored shapes (row-major) and their row strides, padded.
        int64_t aRows = ta ? k : m, aCols = ta ? m : k;
        int64_t bRows = tb ? n : k, bCols = tb ? k : n;
        int64_t lda = aCols + pad, ldb = bCols + pad, ldc = n + pad;
        int64_t sa = aRows * lda, sb = bRows * ldb, sc = m * ldc;
        std::vector<float> a(batch * sa), b(batch * sb), c(batch * sc);
        for (size_t i = 0; i < a.size(); ++i)
          a[i] = float((i * 7) % 11) - 5;
        for (size_t i = 0; i < b.size(); ++i)
          b[i] = float((i * 5) % 13) - 6;
        for (size_t i = 0; i < c.size(); ++i)
          c[i] = float(i % 3);
        std::vector<float> want = c;
        for (int64_t p = 0; p < batch; ++p)
          for (int64_t i = 0; i < m; ++i)
            for (int64_t j = 0; j < n; ++j) {
              float acc = 0;
              for (int64_t l = 0; l < k; ++l)
                acc +=
                    (ta ? a[p * sa + l * lda + i] : a[p * sa + i * lda + l]) *
                    (tb ? b[p * sb + j * ldb + l] : b[p * sb + l * ldb + j]);
              float &out = want[p * sc + i * ldc + j];
              out = acc + float(beta) * out;
            }
        void *da, *db, *dc;
        ASSERT_EQ(take(kiln_rt_cuda_malloc(a.size() * 4, &da)), KILN_RT_OK);
        ASSERT_EQ(take(kiln_rt_cuda_malloc(b.size() * 4, &db)), KILN_RT_OK);
        ASSERT_EQ(take(kiln_rt_cuda_malloc(c.size() * 4, &dc)), KILN_RT_OK);
        ASSERT_EQ(take(kiln_rt_cuda_copy_to_device(da, a.data(), a.size() * 4,
                                                   nullptr)),
                  KILN_RT_OK);
        ASSERT_EQ(take(kiln_rt_cuda_copy_to_device(db, b.data(), b.size() * 4,
                                                   nullptr)),
                  KILN_RT_OK);
        ASSERT_EQ(take(kiln_rt_cuda_copy_to_device(dc, c.data(), c.size() * 4,
                                                   nullptr)),
                  KILN_RT_OK);
        ASSERT_EQ(
            take(kiln_rt_cuda_gemm(KILN_RT_CUDA_F32, KILN_RT_CUDA_MATH_EXACT,
                                   ta, tb, m, n, k, 1.0, da, lda, sa, db, ldb,
                                   sb, beta, dc, ldc, sc, batch, nullptr)),
            KILN_RT_OK);
        std::vector<float> got(c.size());
        ASSERT_EQ(take(kiln_rt_cuda_copy_to_host(got.data(), dc, got.size() * 4,
                                                 nullptr)),
                  KILN_RT_OK);
        for (int64_t p = 0; p < batch; ++p)
          for (int64_t i = 0; i < m; ++i)
            for (int64_t j = 0; j < n; ++j)
              EXPECT_EQ(got[p * sc + i * ldc + j], want[p * sc + i * ldc + j])
                  << p << " " << i << " " << j;
        EXPECT_EQ(take(kiln_rt_cuda_free(da)), KILN_RT_OK);
        EXPECT_EQ(take(kiln_rt_cuda_free(db)), KILN_RT_OK);
        EXPECT_EQ(take(kiln_rt_cuda_free(dc)), KILN_RT_OK);
      }
  EXPECT_EQ(take(kiln_rt_cuda_gemm(KILN_RT_CUDA_F32, KILN_RT_CUDA_MATH_EXACT, 0,
                                   0, -1, 2, 2, 1, nullptr, 1, 0, nullptr, 1, 0,
                                   0, nullptr, 1, 0, 1, nullptr)),
            KILN_RT_INVALID_ARGUMENT);
}

// torch.set_float32_matmul_precision's settings reach cuBLAS as compute
// types that round f32 operands (the stand-in rounds as tensor cores do),
// and f16/bf16 operands are multiplied into f32 results.
TEST_F(CudaRuntimeTest, GemmMathModesAndNarrowOperands) {
  useDriver(KILN_FAKE_CUDA_DRIVER);
  setenv("KILN_RT_LIBCUBLAS", KILN_FAKE_CUBLAS, 1);
  ASSERT_EQ(take(kiln_rt_cuda_init()), KILN_RT_OK);
  ASSERT_TRUE(kiln_rt_cuda_blas_available());
  // 1 + 2^-9 keeps its last bit in TF32 (10 mantissa bits), not in bf16
  // (7); 1 + 2^-12 keeps it in neither.
  auto product = [&](kiln_rt_cuda_math math, float x) {
    float a[2] = {x, x}, b[2] = {1, 1}, c = -1;
    void *da, *db, *dc;
    EXPECT_EQ(take(kiln_rt_cuda_malloc(8, &da)), KILN_RT_OK);
    EXPECT_EQ(take(kiln_rt_cuda_malloc(8, &db)), KILN_RT_OK);
    EXPECT_EQ(take(kiln_rt_cuda_malloc(4, &dc)), KILN_RT_OK);
    EXPECT_EQ(take(kiln_rt_cuda_copy_to_device(da, a, 8, nullptr)), KILN_RT_OK);
    EXPECT_EQ(take(kiln_rt_cuda_copy_to_device(db, b, 8, nullptr)), KILN_RT_OK);
    EXPECT_EQ(
        take(kiln_rt_cuda_gemm(KILN_RT_CUDA_F32, math, 0, 0, 1, 1, 2, 1.0, da,
                               2, 0, db, 1, 0, 0.0, dc, 1, 0, 1, nullptr)),
        KILN_RT_OK);
    EXPECT_EQ(take(kiln_rt_cuda_copy_to_host(&c, dc, 4, nullptr)), KILN_RT_OK);
    for (void *p : {da, db, dc})
      EXPECT_EQ(take(kiln_rt_cuda_free(p)), KILN_RT_OK);
    return c;
  };
  float fine = 1.0f + 0x1p-9f, finer = 1.0f + 0x1p-12f;
  EXPECT_EQ(product(KILN_RT_CUDA_MATH_EXACT, finer), 2 * finer);
  EXPECT_EQ(product(KILN_RT_CUDA_MATH_TF32, finer), 2.0f);
  EXPECT_EQ(product(KILN_RT_CUDA_MATH_TF32, fine), 2 * fine);
  EXPECT_EQ(product(KILN_RT_CUDA_MATH_BF16, fine), 2.0f);

  // bf16 and f16 operands (1.5 and -2 as each stores them), f32 result.
  for (auto [dtype, one_and_half, minus_two] :
       {std::tuple{KILN_RT_CUDA_BF16, uint16_t(0x3fc0), uint16_t(0xc000)},
        std::tuple{KILN_RT_CUDA_F16, uint16_t(0x3e00), uint16_t(0xc000)}}) {
    uint16_t a[2] = {one_and_half, minus_two}, b[2] = {one_and_half, 0x0000};
    float c = 0;
    void *da, *db, *dc;
    ASSERT_EQ(take(kiln_rt_cuda_malloc(4, &da)), KILN_RT_OK);
    ASSERT_EQ(take(kiln_rt_cuda_malloc(4, &db)), KILN_RT_OK);
    ASSERT_EQ(take(kiln_rt_cuda_malloc(4, &dc)), KILN_RT_OK);
    ASSERT_EQ(take(kiln_rt_cuda_copy_to_device(da, a, 4, nullptr)), KILN_RT_OK);
    ASSERT_EQ(take(kiln_rt_cuda_copy_to_device(db, b, 4, nullptr)), KILN_RT_OK);
    // [1, 2] x [2, 1]: 1.5 * 1.5 + -2 * 0.
    ASSERT_EQ(take(kiln_rt_cuda_gemm(dtype, KILN_RT_CUDA_MATH_EXACT, 0, 0, 1, 1,
                                     2, 1.0, da, 2, 0, db, 1, 0, 0.0, dc, 1, 0,
                                     1, nullptr)),
              KILN_RT_OK);
    ASSERT_EQ(take(kiln_rt_cuda_copy_to_host(&c, dc, 4, nullptr)), KILN_RT_OK);
    EXPECT_EQ(c, 2.25f) << "dtype " << dtype;
    for (void *p : {da, db, dc})
      EXPECT_EQ(take(kiln_rt_cuda_free(p)), KILN_RT_OK);
  }

  // A math mode is for f32 operands only.
  double x = 0;
  Status refused = take(
      kiln_rt_cuda_gemm(KILN_RT_CUDA_F64, KILN_RT_CUDA_MATH_TF32, 0, 0, 1, 1, 1,
                        1, &x, 1, 1, &x, 1, 1, 0, &x, 1, 1, 1, nullptr));
  EXPECT_EQ(refused, KILN_RT_INVALID_ARGUMENT);
  EXPECT_EQ(refused.message,
            "kiln_rt_cuda_gemm: no product of element type 1 in math mode 1");
}

TEST_F(CudaRuntimeTest, NoCublas) {
  useDriver(KILN_FAKE_CUDA_DRIVER);
  setenv("KILN_RT_LIBCUBLAS", "/nonexistent/libcublas.so", 1);
  ASSERT_EQ(take(kiln_rt_cuda_init()), KILN_RT_OK);
  // This machine may have a real cuBLAS on the default names.
  if (kiln_rt_cuda_blas_available())
    GTEST_SKIP() << "a cuBLAS is installed here";
  float x = 0;
  Status failure = take(
      kiln_rt_cuda_gemm(KILN_RT_CUDA_F32, KILN_RT_CUDA_MATH_EXACT, 0, 0, 1, 1,
                        1, 1, &x, 1, 1, &x, 1, 1, 0, &x, 1, 1, 1, nullptr));
  EXPECT_EQ(failure, KILN_RT_UNAVAILABLE);
  EXPECT_EQ(failure.message, "cuBLAS is not available");
}

} // namespace
