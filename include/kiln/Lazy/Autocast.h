//===- Autocast.h - torch.autocast for the lazy tensors ---------*- C++ -*-===//
//
// Mixed precision as PyTorch's autocast means it: while autocast is on for
// the device the lazy tensors run on (kiln::getDevice()), on this thread,
// - matrix products (kiln::matmul) cast their f32, f16 and bf16 operands to
//   the autocast dtype and return it: they run on tensor cores on the GPU;
// - PyTorch's float32 list casts f16 and bf16 operands to f32 and returns
//   f32. It differs by device, as PyTorch's: on cuda, softmax, log_softmax,
//   sum, exp, log, pow, rsqrt and reciprocal (and, in Python, layer_norm,
//   rms_norm and the losses); on the cpu, only the losses (Python);
// - every other op runs in its operands' types (PyTorch's promotion).
// f64 is never cast. The casts are recorded ops, so gradients flow back
// through them in each parameter's own dtype.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LAZY_AUTOCAST_H
#define KILN_LAZY_AUTOCAST_H

#include "kiln/Compiler/Device.h"
#include "kiln/Support/HostTensor.h"

#include "llvm/Support/Error.h"

#include <optional>

namespace kiln {

/// torch.autocast's state for one device type, on this thread.
struct AutocastState {
  bool enabled = false;
  /// bf16 or f16.
  DType dtype = DType::BF16;
};

/// The state for `deviceType` (Cpu or Cuda) on this thread: off, with
/// PyTorch's default dtypes (f16 on cuda, bf16 on the cpu) until set.
AutocastState getAutocastState(Device deviceType);
/// Sets the state for `deviceType` on this thread and returns the previous
/// one. Fails for Device::Auto and for a dtype other than bf16 and f16.
llvm::Expected<AutocastState> setAutocastState(Device deviceType,
                                               AutocastState state);

/// The dtype that products cast to now (autocast on for the current
/// device, on this thread), or std::nullopt.
std::optional<DType> getActiveAutocastDType();
/// Whether autocast now casts the cuda float32 list (softmax, sum, exp,
/// log, pow, rsqrt, reciprocal, the norms) to f32: autocast on, on the
/// cuda device. PyTorch's cpu autocast leaves those in the narrow type.
bool isAutocastWideningMath();

/// A scope of autocast on `deviceType` in `dtype`: the previous state comes
/// back when it ends.
class AutocastGuard {
public:
  static llvm::Expected<AutocastGuard> enter(Device deviceType, DType dtype,
                                             bool enabled = true);
  AutocastGuard(AutocastGuard &&other) noexcept;
  AutocastGuard(const AutocastGuard &) = delete;
  AutocastGuard &operator=(const AutocastGuard &) = delete;
  AutocastGuard &operator=(AutocastGuard &&) = delete;
  ~AutocastGuard();

private:
  AutocastGuard(Device deviceType, AutocastState previous)
      : deviceType(deviceType), previous(previous) {}
  Device deviceType;
  AutocastState previous;
  bool active = true;
};

} // namespace kiln

#endif // KILN_LAZY_AUTOCAST_H
