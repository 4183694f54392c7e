//===- DeviceTest.cpp - lazy tensors on the CUDA device -----------------===//
//
// Device selection, and materializing on the cuda device through the
// trace cache. Without a GPU, the device is a stand-in driver (device
// memory is host memory; kernels do not run) with a stand-in cuBLAS that
// computes, so matmul-only programs run end to end and are checked by
// value. A GPU runs everything through test/GPU.
//
//===----------------------------------------------------------------------===//

#include "Compiler/Device/DeviceQueue.h"
#include "Compiler/Frontend/TraceCache.h"
#include "FakeCuda.h"
#include "kiln/Lazy/Autocast.h"
#include "kiln/Lazy/Jit.h"

#include "llvm/ADT/ScopeExit.h"

#include <dlfcn.h>

#include <cstdlib>
#include <regex>

using namespace kiln;

namespace {

class DeviceTest : public FakeCudaTest {};

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

// PyTorch's cuda autocast: products narrow, its float32 list (softmax,
// sum, exp, ...) widened to f32, the rest in the operands' type.
TEST_F(DeviceTest, AutocastOnTheCudaDeviceWidensItsFloat32List) {
  useDriver(KILN_FAKE_CUDA_DRIVER, KILN_FAKE_CUBLAS);
  ASSERT_FALSE(static_cast<bool>(setDevice(Device::Cuda)));
  llvm::Expected<AutocastGuard> guard =
      AutocastGuard::enter(Device::Cuda, DType::BF16);
  ASSERT_TRUE(static_cast<bool>(guard)) << toString(guard.takeError());
  EXPECT_TRUE(isAutocastWideningMath());
  Tensor x = input({2, 2}, {0.5f, -1.0f, 2.0f, 0.25f});
  Tensor product = matmul(x, x);
  ASSERT_TRUE(product.ok()) << product.getError();
  EXPECT_EQ(product.getDType(), DType::BF16);
  EXPECT_EQ(softmax(product, 1).getDType(), DType::F32);
  EXPECT_EQ(logSoftmax(product, 1).getDType(), DType::F32);
  EXPECT_EQ(exp(product).getDType(), DType::F32);
  EXPECT_EQ(sum(product, {0, 1}).getDType(), DType::F32);
  EXPECT_EQ(pow(product, product).getDType(), DType::F32);
  EXPECT_EQ(tanh(product).getDType(), DType::BF16);
  EXPECT_EQ(mean(product, {0}).getDType(), DType::BF16);
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

// Automatic dynamic dims on the cuda device: the second batch size makes
// the shape-generic program (its GEMM sizes computed at run time by the
// host program), which runs every later size with no compile; each
// result is checked by value (the stand-in cuBLAS computes).
TEST_F(DeviceTest, NewBatchSizesOnTheCudaDeviceCompileOnce) {
  useDriver(KILN_FAKE_CUDA_DRIVER, KILN_FAKE_CUBLAS);
  ASSERT_FALSE(static_cast<bool>(setDevice(Device::Cuda)));
  // w^T, stored 4x3: a structure (x w^T) no other test here runs, so the
  // first size compiles for itself and the second the generic program.
  std::vector<float> ws = {1, 0, 2, 1, 0, -1, 3, 1, 1, -2, 0, 1};
  std::vector<float> wts(12);
  for (int k = 0; k < 3; ++k)
    for (int c = 0; c < 4; ++c)
      wts[c * 3 + k] = ws[k * 4 + c];
  Tensor wt = input({4, 3}, wts);
  TraceCacheStats before = TraceCache::global().getStats();
  const std::vector<int64_t> batches = {5, 9, 1, 17, 2, 64, 3};
  for (int64_t batch : batches) {
    std::vector<float> xs(batch * 3);
    for (size_t i = 0; i < xs.size(); ++i)
      xs[i] = static_cast<float>(static_cast<int64_t>(i % 11) - 5);
    Tensor y = matmul(input({batch, 3}, xs), wt, false, true);
    std::vector<float> want(batch * 4, 0.0f);
    for (int64_t r = 0; r < batch; ++r)
      for (int64_t c = 0; c < 4; ++c)
        for (int64_t k = 0; k < 3; ++k)
          want[r * 4 + c] += xs[r * 3 + k] * ws[k * 4 + c];
    ASSERT_FALSE(static_cast<bool>(sync({y})));
    EXPECT_EQ(y.getShape().vec(), (std::vector<int64_t>{batch, 4}));
    EXPECT_EQ(values(y), want) << "batch " << batch;
  }
  TraceCacheStats after = TraceCache::global().getStats();
  EXPECT_EQ(after.compiles - before.compiles, 2);
  EXPECT_EQ(after.genericCompiles - before.genericCompiles, 1);
  EXPECT_EQ(after.genericHits - before.genericHits,
            static_cast<int64_t>(batches.size()) - 2);
}

/// A 4x4 permutation that moves row i to row (i + shift) % 4 when it
/// multiplies from the left.
static std::vector<float> shiftRows(int shift) {
  std::vector<float> p(16, 0.0f);
  for (int i = 0; i < 4; ++i)
    p[((i + shift) % 4) * 4 + i] = 1.0f;
  return p;
}

// Tensors stay on the device: a training-style loop (w <- p_t w, a new
// host batch p_t each step; matmuls only, which the stand-in cuBLAS
// computes) uploads w once, then only each step's batch, and copies
// nothing back until w is read, once. Device memory stays flat over
// 10,000 steps, and the result equals the CPU's.
TEST_F(DeviceTest, TensorsStayOnTheDevice) {
  useDriver(KILN_FAKE_CUDA_DRIVER, KILN_FAKE_CUBLAS);
  auto run = [](Device device, int steps, bool checkBytes) {
    EXPECT_FALSE(static_cast<bool>(setDevice(device)));
    std::vector<float> w0(16);
    for (int i = 0; i < 16; ++i)
      w0[i] = static_cast<float>(i) - 5.5f;
    Tensor w = input({4, 4}, w0);
    uint64_t flatLive = 0;
    for (int step = 0; step < steps; ++step) {
      Tensor batch = input({4, 4}, shiftRows(step % 3 + 1));
      Metrics before = metrics();
      w = matmul(batch, w);
      if (llvm::Error e = sync({w})) {
        ADD_FAILURE() << llvm::toString(std::move(e));
        return std::vector<float>();
      }
      Metrics after = metrics();
      if (checkBytes) {
        // Step 0 uploads w and the batch, later steps the batch alone.
        EXPECT_EQ(after.h2dBytes - before.h2dBytes, step ? 64u : 128u)
            << "step " << step;
        EXPECT_EQ(after.d2hBytes, before.d2hBytes) << "step " << step;
        if (step == 10)
          flatLive = after.deviceLiveBytes;
        if (step > 10 && after.deviceLiveBytes != flatLive) {
          ADD_FAILURE() << "device live bytes grew at step " << step << ": "
                        << flatLive << " -> " << after.deviceLiveBytes;
          return std::vector<float>();
        }
      }
    }
    Metrics before = metrics();
    std::vector<float> got = values(w);
    EXPECT_EQ(values(w), got);
    if (checkBytes)
      EXPECT_EQ(metrics().d2hBytes - before.d2hBytes, 64u)
          << "reading w twice copies it back once";
    return got;
  };
  const int steps = 10000;
  std::vector<float> onCuda = run(Device::Cuda, steps, true);
  std::vector<float> onCpu = run(Device::Cpu, 100, false);
  // 10,000 steps shift the rows as 100 do (modulo 4, the same shifts).
  ASSERT_EQ(steps % 12, 100 % 12);
  EXPECT_EQ(onCuda, onCpu);
}

/// The stand-in driver's count of calls that made the host wait.
static long deviceWaits() {
  auto *waits = getFakeCudaSymbol<long()>("fake_cuda_waits");
  return waits ? waits() : -1;
}

// Steps are queued, not waited for: the host goes on to record the next
// one; only a read of a result (or kiln::synchronize) waits.
TEST_F(DeviceTest, StepsDoNotWaitForTheDevice) {
  useDriver(KILN_FAKE_CUDA_DRIVER, KILN_FAKE_CUBLAS);
  ASSERT_FALSE(static_cast<bool>(setDevice(Device::Cuda)));
  ASSERT_FALSE(static_cast<bool>(synchronize()));
  Tensor w = input({4, 4}, shiftRows(0));
  long before = deviceWaits();
  ASSERT_GE(before, 0);
  for (int step = 0; step < 2 * static_cast<int>(kMaxQueuedRuns) / 3; ++step) {
    w = matmul(input({4, 4}, shiftRows(1)), w);
    ASSERT_FALSE(static_cast<bool>(sync({w})));
  }
  EXPECT_EQ(deviceWaits(), before) << "a step waited for the device";
  EXPECT_EQ(values(w), shiftRows(2 * static_cast<int>(kMaxQueuedRuns) / 3));
  EXPECT_GT(deviceWaits(), before) << "the read did not wait";
  long afterRead = deviceWaits();
  ASSERT_FALSE(static_cast<bool>(synchronize()));
  EXPECT_GT(deviceWaits(), afterRead);
}

// An error of a step's work that its launch could not report (the device
// faults while running it) reaches the next read, naming the program and
// the failing call; the device works again afterwards.
TEST_F(DeviceTest, AnErrorOfQueuedWorkReachesTheRead) {
  useDriver(KILN_FAKE_CUDA_DRIVER, KILN_FAKE_CUBLAS);
  ASSERT_FALSE(static_cast<bool>(setDevice(Device::Cuda)));
  ASSERT_FALSE(static_cast<bool>(synchronize()));
  Tensor a = input({3, 3}, std::vector<float>(9, 1.0f));
  Tensor product = matmul(a, a, true, false);
  ASSERT_FALSE(static_cast<bool>(sync({product})));
  // The device reports the fault when the host waits for the run.
  setenv("FAKE_CUDA_FAIL", "cuEventSynchronize", 1);
  setenv("FAKE_CUDA_FAIL_COUNT", "1", 1);
  setenv("FAKE_CUDA_FAIL_CODE", "700", 1);
  llvm::Expected<HostTensor> read = product.toHost();
  unsetenv("FAKE_CUDA_FAIL");
  unsetenv("FAKE_CUDA_FAIL_COUNT");
  unsetenv("FAKE_CUDA_FAIL_CODE");
  ASSERT_FALSE(static_cast<bool>(read));
  std::string message = llvm::toString(read.takeError());
  EXPECT_NE(message.find("the cuda program computing kiln.matmul [1, 0]"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("cuEventSynchronize: CUDA_ERROR_ILLEGAL_ADDRESS"),
            std::string::npos)
      << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  EXPECT_EQ(values(matmul(a, a)), std::vector<float>(9, 3.0f));
}

// A kiln::Jit replay on the cuda device keeps its values there too: after
// the recorded calls, each replay uploads only its batch, copies nothing
// back, and runs without recording; the result equals the CPU's.
TEST_F(DeviceTest, JitReplaysStayOnTheDevice) {
  useDriver(KILN_FAKE_CUDA_DRIVER, KILN_FAKE_CUBLAS);
  auto train = [](Device device, bool checkBytes) {
    EXPECT_FALSE(static_cast<bool>(setDevice(device)));
    Jit step([](llvm::ArrayRef<Tensor> in) {
      return std::vector<Tensor>{matmul(in[1], in[0])};
    });
    std::vector<float> w0(16);
    for (int i = 0; i < 16; ++i)
      w0[i] = static_cast<float>(i) * 0.5f - 3.0f;
    Tensor w = input({4, 4}, w0);
    for (int s = 0; s < 30; ++s) {
      Tensor batch = input({4, 4}, shiftRows(s % 3 + 1));
      Metrics before = metrics();
      llvm::Expected<std::vector<Tensor>> out = step({w, batch});
      if (!out) {
        ADD_FAILURE() << llvm::toString(out.takeError());
        return std::vector<float>();
      }
      Metrics after = metrics();
      if (checkBytes && s >= 2) {
        EXPECT_EQ(after.h2dBytes - before.h2dBytes, 64u) << "step " << s;
        EXPECT_EQ(after.d2hBytes, before.d2hBytes) << "step " << s;
        EXPECT_EQ(after.tracedOps, before.tracedOps) << "step " << s;
      }
      w = (*out)[0];
    }
    EXPECT_EQ(step.getNumReplays(), 28);
    return values(w);
  };
  std::vector<float> onCuda = train(Device::Cuda, true);
  EXPECT_EQ(onCuda, train(Device::Cpu, false));
}

// Out of device memory: the allocator gives its cached blocks back and
// tries again; when that fails too, the error names the size asked for
// and the bytes in use.
TEST_F(DeviceTest, OutOfDeviceMemory) {
  useDriver(KILN_FAKE_CUDA_DRIVER, KILN_FAKE_CUBLAS);
  ASSERT_FALSE(static_cast<bool>(setDevice(Device::Cuda)));
  Tensor a = input({8, 8}, std::vector<float>(64, 1.0f));
  {
    // A result that dies leaves its block in the cache.
    Tensor dropped = matmul(a, a);
    ASSERT_FALSE(static_cast<bool>(sync({dropped})));
  }
  kiln_rt_cuda_memory_stats memory;
  kiln_rt_cuda_get_memory_stats(&memory);
  ASSERT_GT(memory.cached_bytes, 0u);
  // The next cuMemAlloc fails (the upload of `big`, a size no cached
  // block has): the allocator empties its cache and tries again, which
  // succeeds, so the step does.
  setenv("FAKE_CUDA_FAIL", "cuMemAlloc_v2", 1);
  setenv("FAKE_CUDA_FAIL_COUNT", "1", 1);
  Tensor big = input({300, 300}, std::vector<float>(90000, 0.5f));
  Tensor product = matmul(big, big);
  llvm::Error retried = sync({product});
  EXPECT_FALSE(static_cast<bool>(retried))
      << llvm::toString(std::move(retried));
  EXPECT_EQ(values(product)[0], 75.0f);
  // Every allocation fails: a clear error, and no crash.
  setenv("FAKE_CUDA_FAIL_COUNT", "1000000", 1);
  Tensor other = input({100, 100}, std::vector<float>(10000, 1.0f));
  llvm::Error error = sync({matmul(other, other)});
  unsetenv("FAKE_CUDA_FAIL");
  unsetenv("FAKE_CUDA_FAIL_COUNT");
  ASSERT_TRUE(static_cast<bool>(error));
  std::string message = llvm::toString(std::move(error));
  EXPECT_NE(message.find("out of device memory: 40000 bytes requested, "),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("bytes in use"), std::string::npos) << message;
  // The device works again afterwards.
  EXPECT_EQ(values(matmul(other, other))[0], 100.0f);
}

/// One SGD step of a tanh layer, materialized at once: a GEMM, fused
/// kernels, the gradient's GEMM and the update. `batch` picks the program
/// (a new batch size compiles and loads a new one).
static llvm::Error trainStep(Tensor &w, int64_t batch) {
  std::vector<float> xs(batch * 3);
  for (size_t i = 0; i < xs.size(); ++i)
    xs[i] = 0.1f * static_cast<float>(i % 7) - 0.3f;
  Tensor x = input({batch, 3}, xs);
  Tensor y = tanh(matmul(x, w));
  Tensor loss = sum(y * y, {0, 1});
  Tensor next = w - grad({loss}, {w})[0] * 0.1;
  if (llvm::Error error = sync({loss, next}))
    return error;
  w = next;
  return llvm::Error::success();
}

/// A stand-in library's fault injection: the variable that fails its Nth
/// call, and its call count so far.
struct FaultPoint {
  const char *library, *variable, *counter;
};

/// Whether the failure the stand-ins reported (`said`, on stderr) is one of
/// the graph path: a graph or capture call, the stream a capture makes for
/// itself, or any call while capturing. It may make a step fall back to a
/// direct run (which succeeds) instead of failing it.
static bool isGraphFailure(const std::string &name, const std::string &said) {
  return name.rfind("cuGraph", 0) == 0 ||
         name.find("Capture") != std::string::npos ||
         name == "cuStreamCreate" || name == "cuStreamDestroy_v2" ||
         said.find("fails while capturing") != std::string::npos;
}

/// Sets KILN_CUDA_GRAPHS to `value` until the result goes.
static auto withGraphs(const char *value) {
  setenv("KILN_CUDA_GRAPHS", value, 1);
  return llvm::scope_exit([] { unsetenv("KILN_CUDA_GRAPHS"); });
}

/// The Nth call of the stand-in driver, then of the stand-in cuBLAS, fails,
/// for every N over one training step: one that compiles and loads its
/// program (`warmSteps` 0), or the step after `warmSteps` clean steps of a
/// new batch size. Each failing step returns one error naming the failing
/// call (never a success that hid it, never a crash), except where a
/// failed graph call made the step run directly; the next step in the
/// same process succeeds.
static void checkFaults(int warmSteps, bool graphs, const char *kind) {
  Tensor w = input({3, 2}, {0.1f, -0.2f, 0.3f, 0.2f, -0.1f, 0.05f});
  ASSERT_FALSE(static_cast<bool>(trainStep(w, 4)));
  const FaultPoint points[] = {
      {KILN_FAKE_CUDA_DRIVER, "FAKE_CUDA_FAIL_AT", "fake_cuda_calls"},
      {KILN_FAKE_CUBLAS, "FAKE_CUBLAS_FAIL_AT", "fake_cublas_entry_calls"}};
  static int64_t batch = 5;
  // A new batch size, run `warmSteps` times cleanly.
  auto warm = [&] {
    ++batch;
    for (int i = 0; i < warmSteps; ++i)
      ASSERT_FALSE(static_cast<bool>(trainStep(w, batch)));
  };
  for (const FaultPoint &point : points) {
    void *library = dlopen(point.library, RTLD_NOW | RTLD_NOLOAD);
    ASSERT_NE(library, nullptr) << point.library << " is not loaded";
    auto calls = reinterpret_cast<long (*)()>(dlsym(library, point.counter));
    ASSERT_NE(calls, nullptr) << point.counter;
    // The calls of one clean step of this kind.
    warm();
    long before = calls();
    ASSERT_FALSE(static_cast<bool>(trainStep(w, batch)));
    long perStep = calls() - before;
    if (graphs && perStep == 0 && warmSteps > 1) {
      // A replay makes no call of this library (cuBLAS's products are
      // nodes of the graph).
      llvm::outs() << point.variable << ": no call in a " << kind << " step\n";
      continue;
    }
    ASSERT_GT(perStep, 0) << point.variable;
    int fellBack = 0;
    for (long n = 1; n <= perStep; ++n) {
      warm();
      setenv(point.variable, std::to_string(calls() + n).c_str(), 1);
      testing::internal::CaptureStderr();
      llvm::Error error = trainStep(w, batch);
      std::string said = testing::internal::GetCapturedStderr();
      unsetenv(point.variable);
      std::smatch name;
      if (graphs && !error && said.empty()) {
        // The step made fewer calls than the one measured (blocks it
        // allocated then are cached now): every call of it was failed.
        perStep = n - 1;
        break;
      }
      ASSERT_TRUE(
          std::regex_search(said, name, std::regex("call [0-9]+ \\((\\w+)\\)")))
          << point.variable << "=" << n << ": no call failed: " << said;
      if (!error && graphs && isGraphFailure(name[1].str(), said)) {
        ++fellBack; // the graph was dropped; the direct run did the step
      } else {
        ASSERT_TRUE(static_cast<bool>(error))
            << point.variable << ": the step succeeded with " << name[1]
            << " failing";
        std::string message = llvm::toString(std::move(error));
        EXPECT_NE(message.find(name[1].str()), std::string::npos)
            << "the error does not name " << name[1] << ": " << message
            << " (stderr: " << said << ")";
        EXPECT_EQ(message.find('\n'), std::string::npos)
            << "not one line: " << message;
      }
      // The next step, in the same process, works.
      ASSERT_FALSE(static_cast<bool>(trainStep(w, batch)))
          << "the step after " << name[1] << " failed";
    }
    llvm::outs() << point.variable << ": " << perStep << " of " << perStep
                 << " faults handled in a " << kind << " step (" << fellBack
                 << " by running directly)\n";
  }
}

// Direct runs (no graphs): a step that compiles, and a cached one.
TEST_F(DeviceTest, FaultsInATrainingStep) {
  useDriver(KILN_FAKE_CUDA_DRIVER, KILN_FAKE_CUBLAS);
  // Each new batch size compiles and loads a program of its own (not the
  // shape-generic one, which would load once).
  setenv("KILN_DYNAMIC", "0", 1);
  llvm::scope_exit restore([] { unsetenv("KILN_DYNAMIC"); });
  auto direct = withGraphs("0");
  ASSERT_FALSE(static_cast<bool>(setDevice(Device::Cuda)));
  checkFaults(0, false, "compiling");
  checkFaults(1, false, "cached");
}

// The first compile of a runtime session reads the device's properties
// (once per session, so a compile-cache hit and a miss make the same
// calls): each call of a new session's first compiling step fails in turn,
// the step returns one error naming it, and the next step works.
TEST_F(DeviceTest, FaultsInASessionsFirstStep) {
  useDriver(KILN_FAKE_CUDA_DRIVER, KILN_FAKE_CUBLAS);
  setenv("KILN_DYNAMIC", "0", 1);
  llvm::scope_exit restore([] { unsetenv("KILN_DYNAMIC"); });
  auto direct = withGraphs("0");
  ASSERT_FALSE(static_cast<bool>(setDevice(Device::Cuda)));
  Tensor w = input({3, 2}, {0.1f, -0.2f, 0.3f, 0.2f, -0.1f, 0.05f});
  ASSERT_FALSE(static_cast<bool>(trainStep(w, 3)));
  // Held open, so that the counter outlives the runtime's shutdowns.
  void *library = dlopen(KILN_FAKE_CUDA_DRIVER, RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(library, nullptr);
  auto calls = reinterpret_cast<long (*)()>(dlsym(library, "fake_cuda_calls"));
  ASSERT_NE(calls, nullptr);
  int64_t batch = 100;
  // The weights live on the device: a new session starts them again.
  auto restart = [&] {
    kiln_rt_cuda_shutdown();
    ASSERT_FALSE(static_cast<bool>(setDevice(Device::Cuda)));
    w = input({3, 2}, {0.1f, -0.2f, 0.3f, 0.2f, -0.1f, 0.05f});
  };
  restart();
  long before = calls();
  ASSERT_FALSE(static_cast<bool>(trainStep(w, ++batch)));
  long perStep = calls() - before;
  ASSERT_GT(perStep, 0);
  bool queried = false;
  int recovered = 0;
  for (long n = 1; n <= perStep; ++n) {
    restart();
    setenv("FAKE_CUDA_FAIL_AT", std::to_string(calls() + n).c_str(), 1);
    testing::internal::CaptureStderr();
    llvm::Error error = trainStep(w, ++batch);
    std::string said = testing::internal::GetCapturedStderr();
    unsetenv("FAKE_CUDA_FAIL_AT");
    std::smatch name;
    ASSERT_TRUE(
        std::regex_search(said, name, std::regex("call [0-9]+ \\((\\w+)\\)")))
        << "call " << n << ": no call failed: " << said;
    if (!error && name[1] == "cuMemAlloc_v2") {
      // Out of memory (the stand-in's code): the allocator gave its cached
      // blocks back and allocated again.
      ++recovered;
      ASSERT_FALSE(static_cast<bool>(trainStep(w, batch)));
      continue;
    }
    ASSERT_TRUE(static_cast<bool>(error))
        << "the step succeeded with " << name[1] << " failing";
    std::string message = llvm::toString(std::move(error));
    EXPECT_NE(message.find(name[1].str()), std::string::npos)
        << "the error does not name " << name[1] << ": " << message;
    if (name[1].str().rfind("cuDevice", 0) == 0) {
      queried = true;
      EXPECT_NE(message.find("cannot read the cuda device's properties"),
                std::string::npos)
          << message;
    }
    ASSERT_FALSE(static_cast<bool>(trainStep(w, batch)))
        << "the step after " << name[1] << " failed";
  }
  EXPECT_TRUE(queried) << "no step of a new session read the device";
  llvm::outs() << "FAKE_CUDA_FAIL_AT: " << perStep
               << " faults handled in a new session's first step (" << recovered
               << " allocations retried)\n";
  // A later compile in the same session reads nothing of the device.
  before = calls();
  ASSERT_FALSE(static_cast<bool>(trainStep(w, ++batch)));
  EXPECT_LT(calls() - before, perStep);
}

// Graph runs: the step that captures the graph (after one direct run),
// and a replay (after the steps that captured the graphs the weights'
// alternating buffers need).
TEST_F(DeviceTest, FaultsInAGraphedTrainingStep) {
  useDriver(KILN_FAKE_CUDA_DRIVER, KILN_FAKE_CUBLAS);
  setenv("KILN_DYNAMIC", "0", 1);
  llvm::scope_exit restore([] { unsetenv("KILN_DYNAMIC"); });
  auto graphs = withGraphs("1");
  ASSERT_FALSE(static_cast<bool>(setDevice(Device::Cuda)));
  checkFaults(1, true, "capturing");
  checkFaults(6, true, "replaying");
}

} // namespace
