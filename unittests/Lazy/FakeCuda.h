//===- FakeCuda.h - lazy tests on the stand-in CUDA driver ------*- C++ -*-===//
//
// A fixture that points the CUDA runtime at a driver and cuBLAS (the
// stand-ins of unittests/Runtime, or a missing library) and restores the
// CPU afterwards, and access to the stand-ins' counters.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_UNITTESTS_LAZY_FAKECUDA_H
#define KILN_UNITTESTS_LAZY_FAKECUDA_H

#include "LazyTestHelpers.h"
#include "kiln_rt/kiln_rt_cuda.h"

#include <dlfcn.h>

#include <cstdlib>

namespace kiln {

class FakeCudaTest : public testing::Test {
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

/// The stand-in driver's symbol `name` (a counter or a function), or null
/// where the driver is not loaded.
template <typename T> T *getFakeCudaSymbol(const char *name) {
  void *library = dlopen(KILN_FAKE_CUDA_DRIVER, RTLD_NOW | RTLD_NOLOAD);
  return reinterpret_cast<T *>(library ? dlsym(library, name) : nullptr);
}

} // namespace kiln

#endif // KILN_UNITTESTS_LAZY_FAKECUDA_H
