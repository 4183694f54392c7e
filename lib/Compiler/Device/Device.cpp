//===- Device.cpp - where compiled programs run ---------------------------===//

#include "kiln/Compiler/Device.h"
#include "Support/RuntimeError.h"
#include "kiln_rt/kiln_rt_cuda.h"

#include "llvm/ADT/Twine.h"

#include <atomic>
#include <cstdlib>
#include <mutex>

using namespace kiln;

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

llvm::StringRef kiln::getDeviceName(Device device) {
  switch (device) {
  case Device::Cpu:
    return "cpu";
  case Device::Cuda:
    return "cuda";
  case Device::Auto:
    return "auto";
  }
  return "unknown";
}

llvm::Expected<Device> kiln::parseDevice(llvm::StringRef name) {
  for (Device device : {Device::Cpu, Device::Cuda, Device::Auto})
    if (name == getDeviceName(device))
      return device;
  return makeError("'" + name + "' is not a device (cpu, cuda or auto)");
}

llvm::Expected<Device> kiln::resolveDevice(Device requested) {
  if (requested == Device::Cpu)
    return Device::Cpu;
  if (kiln_rt_status status = kiln_rt_cuda_init()) {
    if (requested == Device::Auto) {
      kiln_rt_status_free(status); // no GPU here: the CPU, as asked
      return Device::Cpu;
    }
    return takeRuntimeError(status, "the cuda device is unavailable");
  }
  return Device::Cuda;
}

llvm::Expected<std::string> kiln::getCudaChip() {
  if (kiln_rt_status status = kiln_rt_cuda_init()) {
    kiln_rt_status_free(status); // no GPU: no chip
    return std::string();
  }
  // The device's properties are read once per session of the runtime: every
  // compile (and every compile-cache key) needs the chip, and a cache hit
  // should not cost the driver calls of a query.
  static std::mutex mutex;
  static uint64_t session = 0;
  static std::string chip;
  std::lock_guard<std::mutex> lock(mutex);
  if (session == kiln_rt_cuda_session() && !chip.empty())
    return chip;
  kiln_rt_cuda_device_info info;
  if (kiln_rt_status status = kiln_rt_cuda_device_get_info(&info))
    return takeRuntimeError(status, "cannot read the cuda device's properties");
  chip = "sm_" + std::to_string(info.compute_major) +
         std::to_string(info.compute_minor);
  session = kiln_rt_cuda_session();
  return chip;
}

namespace {
/// What KILN_DEVICE names, if it is not a device: reported when a program
/// is to run (an environment variable has no caller to fail).
std::string &deviceSettingError() {
  static std::string *error = new std::string();
  return *error;
}

/// The default device, Cpu or Cuda (Auto resolved when set). KILN_DEVICE=cuda
/// asks for the GPU: where it is unavailable, running fails and says why,
/// as setDevice(Device::Cuda) does; auto falls back to the CPU.
std::atomic<Device> &currentDevice() {
  static std::atomic<Device> *device = [] {
    auto *d = new std::atomic<Device>(Device::Cpu);
    const char *env = std::getenv("KILN_DEVICE");
    llvm::StringRef name = env ? env : "";
    if (name.empty())
      return d;
    llvm::Expected<Device> parsed = parseDevice(name);
    if (!parsed) {
      llvm::consumeError(parsed.takeError());
      deviceSettingError() = ("kiln: KILN_DEVICE='" + name +
                              "' is not a device (cpu, cuda or auto)")
                                 .str();
      return d;
    }
    if (*parsed == Device::Auto) {
      llvm::Expected<Device> resolved = resolveDevice(Device::Auto);
      d->store(resolved ? *resolved : Device::Cpu);
      if (!resolved)
        llvm::consumeError(resolved.takeError());
    } else {
      d->store(*parsed);
    }
    return d;
  }();
  return *device;
}
} // namespace

llvm::Error kiln::setDevice(Device device) {
  llvm::Expected<Device> resolved = resolveDevice(device);
  if (!resolved)
    return makeError("kiln: " + llvm::toString(resolved.takeError()));
  currentDevice().store(*resolved);
  return llvm::Error::success();
}

Device kiln::getDevice() { return currentDevice().load(); }

llvm::Error kiln::checkDevice() {
  getDevice();
  if (!deviceSettingError().empty())
    return makeError(deviceSettingError());
  return llvm::Error::success();
}
