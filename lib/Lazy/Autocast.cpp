//===- Autocast.cpp - torch.autocast for the lazy tensors -----------------===//

#include "kiln/Lazy/Autocast.h"

using namespace kiln;

namespace {
/// Per thread, as PyTorch's autocast state: the CPU's and the GPU's.
struct ThreadAutocast {
  AutocastState cpu{false, DType::BF16};
  AutocastState cuda{false, DType::F16};
};
thread_local ThreadAutocast threadAutocast;

AutocastState *stateFor(Device deviceType) {
  switch (deviceType) {
  case Device::Cpu:
    return &threadAutocast.cpu;
  case Device::Cuda:
    return &threadAutocast.cuda;
  case Device::Auto:
    break;
  }
  return nullptr;
}
} // namespace

AutocastState kiln::getAutocastState(Device deviceType) {
  AutocastState *state = stateFor(deviceType);
  return state ? *state : AutocastState{};
}

llvm::Expected<AutocastState> kiln::setAutocastState(Device deviceType,
                                                     AutocastState state) {
  AutocastState *current = stateFor(deviceType);
  if (!current)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "autocast: the device type must be 'cpu' or 'cuda', not '" +
            getDeviceName(deviceType) + "'");
  if (state.dtype != DType::BF16 && state.dtype != DType::F16)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "autocast: the dtype must be bfloat16 or float16, not " +
            getDTypeName(state.dtype));
  AutocastState previous = *current;
  *current = state;
  return previous;
}

std::optional<DType> kiln::getActiveAutocastDType() {
  // The common case, autocast off everywhere, reads no device.
  if (!threadAutocast.cpu.enabled && !threadAutocast.cuda.enabled)
    return std::nullopt;
  const AutocastState &state =
      getDevice() == Device::Cuda ? threadAutocast.cuda : threadAutocast.cpu;
  if (!state.enabled)
    return std::nullopt;
  return state.dtype;
}

bool kiln::isAutocastWideningMath() {
  return threadAutocast.cuda.enabled && getDevice() == Device::Cuda;
}

llvm::Expected<AutocastGuard> AutocastGuard::enter(Device deviceType,
                                                   DType dtype, bool enabled) {
  llvm::Expected<AutocastState> previous =
      setAutocastState(deviceType, {enabled, dtype});
  if (!previous)
    return previous.takeError();
  return AutocastGuard(deviceType, *previous);
}

AutocastGuard::AutocastGuard(AutocastGuard &&other) noexcept
    : deviceType(other.deviceType), previous(other.previous),
      active(other.active) {
  other.active = false;
}

AutocastGuard::~AutocastGuard() {
  if (active)
    llvm::consumeError(setAutocastState(deviceType, previous).takeError());
}
