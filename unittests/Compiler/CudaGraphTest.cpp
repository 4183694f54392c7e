//===- CudaGraphTest.cpp - CUDA executables replayed as graphs ------------===//
//
// On the stand-in driver (kernels do not run; its cuBLAS computes, and
// graph launches replay the recorded launches through the same checks as
// direct ones): a graph replay launches exactly the kernels a direct run
// launches, each on the buffers of its own run (kernel nodes updated in
// place, products captured again), and its products compute the same
// values. Replays are one graph launch each.
//
//===----------------------------------------------------------------------===//

#include "Compiler/Device/CudaGraphs.h"
#include "Compiler/Device/DeviceTensor.h"
#include "KilnTestContext.h"
#include "RuntimeStatus.h"
#include "kiln/Compiler/Executable.h"
#include "kiln_rt/kiln_rt_cuda.h"

#include "llvm/ADT/ScopeExit.h"

#include <dlfcn.h>

#include <cstdlib>
#include <map>

using namespace kiln;
using kiln::test::take;

namespace {

/// A matmul (cuBLAS), elementwise kernels on an argument the product does
/// not take, and a reduction: temporaries, kernel nodes and a product.
constexpr const char *kLayer = R"mlir(
  func.func @main(%x: tensor<8x4xf32>, %w: tensor<4x4xf32>,
                  %b: tensor<8x4xf32>) -> (tensor<8x4xf32>, tensor<4xf32>) {
    %m = kiln.matmul %x, %w : tensor<8x4xf32>, tensor<4x4xf32> -> tensor<8x4xf32>
    %s = kiln.add %m, %b : tensor<8x4xf32>
    %t = kiln.tanh %s : tensor<8x4xf32>
    %e = kiln.mul %t, %b : tensor<8x4xf32>
    %r = kiln.reduce_sum %e, dims = [0] : tensor<8x4xf32> -> tensor<4xf32>
    return %t, %r : tensor<8x4xf32>, tensor<4xf32>
  }
)mlir";

/// Products only, which the stand-in computes: checked by value.
constexpr const char *kProducts = R"mlir(
  func.func @main(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>,
                  %v: tensor<4x4xf32>) -> tensor<4x4xf32> {
    %a = kiln.matmul %x, %w : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
    %b = kiln.matmul %a, %v : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
    return %b : tensor<4x4xf32>
  }
)mlir";

template <typename T> T *fakeSymbol(const char *name) {
  void *library = dlopen(KILN_FAKE_CUDA_DRIVER, RTLD_NOW | RTLD_NOLOAD);
  return reinterpret_cast<T *>(library ? dlsym(library, name) : nullptr);
}

class CudaGraphTest : public KilnTestContext {
protected:
  void SetUp() override {
    kiln_rt_cuda_shutdown();
    setenv("KILN_RT_LIBCUDA", KILN_FAKE_CUDA_DRIVER, 1);
    setenv("KILN_RT_LIBCUBLAS", KILN_FAKE_CUBLAS, 1);
    ASSERT_EQ(take(kiln_rt_cuda_init()), KILN_RT_OK);
    ASSERT_TRUE(kiln_rt_cuda_blas_available());
  }
  void TearDown() override {
    kiln_rt_cuda_shutdown();
    unsetenv("KILN_RT_LIBCUDA");
    unsetenv("KILN_RT_LIBCUBLAS");
    unsetenv("KILN_CUDA_GRAPHS");
  }

  /// `source` compiled for CUDA with KILN_CUDA_GRAPHS=`graphs`.
  std::unique_ptr<Executable> compile(const char *source, const char *graphs) {
    setenv("KILN_CUDA_GRAPHS", graphs, 1);
    if (!parse(source))
      return nullptr;
    CompileOptions options;
    options.device = Device::Cuda;
    options.blas = true;
    auto exe = Executable::compile(*module, "main", options);
    if (!exe) {
      ADD_FAILURE() << llvm::toString(exe.takeError());
      return nullptr;
    }
    return std::move(*exe);
  }

  using Value = std::shared_ptr<const DeviceValue>;

  static Value upload(llvm::ArrayRef<int64_t> shape, double seed) {
    HostTensor host(DType::F32, shape);
    for (int64_t i = 0; i < host.getNumElements(); ++i)
      host.setFromDouble(i,
                         static_cast<double>((i * 7 + 3) % 11) * 0.25 - seed);
    auto value = CudaDeviceTensor::upload(host);
    EXPECT_TRUE(static_cast<bool>(value)) << llvm::toString(value.takeError());
    return value ? Value(*value) : nullptr;
  }

  /// Runs `exe` on `args`, logging its kernel launches (the stand-in's
  /// log: each kernel run, direct or replayed from a graph), and gives
  /// them with each parameter word that is a buffer of the run written as
  /// "argN" (inputs, then results), any other device address as "temp",
  /// and other words as numbers; plus the results.
  std::vector<std::string> runLogged(const Executable &exe,
                                     llvm::ArrayRef<Value> args,
                                     std::vector<Value> &results) {
    auto log = fakeSymbol<void(int)>("fake_cuda_log_launches");
    auto count = fakeSymbol<int()>("fake_cuda_logged_launches");
    auto logged =
        fakeSymbol<const char *(int, const unsigned long long **, int *)>(
            "fake_cuda_logged_launch");
    auto isDevice =
        fakeSymbol<int(unsigned long long)>("fake_cuda_is_device_pointer");
    EXPECT_TRUE(log && count && logged && isDevice);
    if (!log || !count || !logged || !isDevice)
      return {};
    log(1);
    std::vector<const DeviceValue *> pointers;
    for (const Value &arg : args)
      pointers.push_back(arg.get());
    auto ran = exe.runOnDevice(pointers);
    EXPECT_TRUE(static_cast<bool>(ran)) << llvm::toString(ran.takeError());
    if (!ran)
      return {};
    results = *ran;
    // Graph launches run their kernels when launched on the stand-in.
    std::map<unsigned long long, std::string> names;
    for (auto [i, arg] : llvm::enumerate(args))
      names[reinterpret_cast<uintptr_t>(arg->getAddress())] =
          "arg" + std::to_string(i);
    for (auto [i, result] : llvm::enumerate(results))
      names[reinterpret_cast<uintptr_t>(result->getAddress())] =
          "arg" + std::to_string(args.size() + i);
    std::vector<std::string> launches;
    for (int i = 0, e = count(); i < e; ++i) {
      const unsigned long long *words = nullptr;
      int n = 0;
      const char *function = logged(i, &words, &n);
      std::string line(function, std::strcspn(function, "("));
      for (int w = 0; w < n; ++w) {
        auto name = names.find(words[w]);
        line += " " + (name != names.end()  ? name->second
                       : isDevice(words[w]) ? std::string("temp")
                                            : std::to_string(words[w]));
      }
      launches.push_back(line);
    }
    log(0);
    return launches;
  }
};

// Runs on changing buffers (ten sets of inputs, more than the
// kGraphsPerDims graphs one set of dims keeps; new results each run):
// every replay launches what the direct run launches, on its own run's
// buffers, and from the third run on each run is one graph launch and no
// direct kernel launch.
TEST_F(CudaGraphTest, ReplaysLaunchWhatDirectRunsLaunch) {
  auto direct = compile(kLayer, "0");
  auto graphed = compile(kLayer, "1");
  ASSERT_TRUE(direct && graphed);
  std::vector<std::vector<Value>> sets;
  for (int s = 0; s < 10; ++s)
    sets.push_back(
        {upload({8, 4}, s), upload({4, 4}, 0.5 * s), upload({8, 4}, 1.0 - s)});
  auto *graphLaunches = fakeSymbol<int>("fake_cuda_graph_launches");
  auto *directLaunches = fakeSymbol<int>("fake_cuda_launches");
  ASSERT_TRUE(graphLaunches && directLaunches);
  // The set of each run: repeats, alternations, and a set the graphs have
  // not seen, so that nodes are updated and products captured again.
  const int order[] = {0, 0, 1, 0, 1, 2, 2, 0, 1, 2, 1,
                       1, 3, 4, 5, 6, 7, 8, 9, 0, 5, 9};
  for (auto [run, s] : llvm::enumerate(order)) {
    std::vector<Value> directResults, graphResults;
    std::vector<std::string> want = runLogged(*direct, sets[s], directResults);
    int graphBefore = *graphLaunches, directBefore = *directLaunches;
    std::vector<std::string> got = runLogged(*graphed, sets[s], graphResults);
    ASSERT_FALSE(want.empty());
    EXPECT_EQ(got, want) << "run " << run;
    if (run >= 1) {
      EXPECT_EQ(*graphLaunches - graphBefore, 1) << "run " << run;
      EXPECT_EQ(*directLaunches, directBefore) << "run " << run;
    }
  }
  static_assert(kGraphsPerDims < 10, "the runs must capture again");
  kiln_rt_cuda_graph_stats stats;
  kiln_rt_cuda_get_graph_stats(&stats);
  EXPECT_GT(stats.node_updates, 0u);
  EXPECT_GT(stats.graph_updates, 0u);
}

// Products checked by value: graph replays on moving buffers compute what
// direct runs compute, and what the host computes.
TEST_F(CudaGraphTest, ReplayedProductsEqualDirectOnes) {
  auto direct = compile(kProducts, "0");
  auto graphed = compile(kProducts, "1");
  ASSERT_TRUE(direct && graphed);
  std::vector<Value> x = {upload({4, 4}, 0), upload({4, 4}, 1),
                          upload({4, 4}, 2)};
  Value w = upload({4, 4}, 0.5), v = upload({4, 4}, -0.5);
  kiln_rt_cuda_graph_stats before;
  kiln_rt_cuda_get_graph_stats(&before);
  for (int run = 0; run < 10; ++run) {
    const Value &input = x[(run * run) % 3];
    auto want = direct->runOnDevice({input.get(), w.get(), v.get()});
    auto got = graphed->runOnDevice({input.get(), w.get(), v.get()});
    ASSERT_TRUE(want && got);
    auto wantHost = (*want)[0]->download(), gotHost = (*got)[0]->download();
    ASSERT_TRUE(wantHost && gotHost);
    std::vector<float> expected(16, 0.0f);
    auto in = input->download(), wh = w->download(), vh = v->download();
    ASSERT_TRUE(in && wh && vh);
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) {
        float acc = 0;
        for (int k = 0; k < 4; ++k) {
          float a = 0;
          for (int l = 0; l < 4; ++l)
            a += static_cast<const float *>(in->getData())[i * 4 + l] *
                 static_cast<const float *>(wh->getData())[l * 4 + k];
          acc += a * static_cast<const float *>(vh->getData())[k * 4 + j];
        }
        expected[i * 4 + j] = acc;
      }
    for (int i = 0; i < 16; ++i) {
      EXPECT_EQ(static_cast<const float *>(gotHost->getData())[i],
                static_cast<const float *>(wantHost->getData())[i])
          << "run " << run << " element " << i;
      EXPECT_NEAR(static_cast<const float *>(gotHost->getData())[i],
                  expected[i], 1e-4);
    }
  }
  kiln_rt_cuda_graph_stats after;
  kiln_rt_cuda_get_graph_stats(&after);
  EXPECT_GE(after.launches - before.launches, 8u);
}

// A shutdown of the runtime takes every graph's driver objects (and the
// libraries the warm-up run set up); after the next init, the executable
// runs directly once, captures again and replays, with the right values.
TEST_F(CudaGraphTest, GraphsStartAgainAfterAShutdown) {
  auto graphed = compile(kProducts, "1");
  ASSERT_TRUE(graphed);
  for (int session = 0; session < 2; ++session) {
    if (session) {
      kiln_rt_cuda_shutdown();
      ASSERT_EQ(take(kiln_rt_cuda_init()), KILN_RT_OK);
    }
    Value x = upload({4, 4}, 1), w = upload({4, 4}, 0.5),
          v = upload({4, 4}, -0.5);
    auto *graphLaunches = fakeSymbol<int>("fake_cuda_graph_launches");
    ASSERT_TRUE(graphLaunches);
    int before = *graphLaunches;
    std::vector<float> first;
    for (int run = 0; run < 4; ++run) {
      auto got = graphed->runOnDevice({x.get(), w.get(), v.get()});
      ASSERT_TRUE(static_cast<bool>(got)) << llvm::toString(got.takeError());
      auto host = (*got)[0]->download();
      ASSERT_TRUE(static_cast<bool>(host));
      const float *data = static_cast<const float *>(host->getData());
      std::vector<float> values(data, data + 16);
      if (run == 0)
        first = values;
      EXPECT_EQ(values, first) << "session " << session << " run " << run;
    }
    // The first run of a session is direct; the others are graph launches.
    EXPECT_EQ(*graphLaunches - before, 3) << "session " << session;
  }
}

} // namespace
