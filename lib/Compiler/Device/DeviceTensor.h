//===- DeviceTensor.h - tensors in CUDA device memory -----------*- C++ -*-===//
//
// A tensor held in a block of the CUDA runtime's caching allocator: what a
// run on the device returns, and what a host tensor becomes once uploaded.
// The block goes back to the allocator when the last holder lets go (not
// after the runtime shut down: its memory went with it).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_DEVICE_DEVICETENSOR_H
#define KILN_COMPILER_DEVICE_DEVICETENSOR_H

#include "kiln/Trace/Trace.h"
#include "kiln_rt/kiln_rt.h"

#include <memory>

namespace kiln {

class CudaDeviceTensor final : public DeviceValue {
public:
  /// An uninitialized tensor on the device (the runtime initialized).
  static llvm::Expected<std::shared_ptr<const CudaDeviceTensor>>
  allocate(DType dtype, llvm::ArrayRef<int64_t> shape);
  /// A copy of `host` on the device.
  static llvm::Expected<std::shared_ptr<const CudaDeviceTensor>>
  upload(const HostTensor &host);
  ~CudaDeviceTensor() override;

  /// Copies the tensor to the host, after the work queued before it.
  llvm::Expected<HostTensor> download() const override;
  /// Whether the memory is still the runtime's (it has not shut down
  /// since the allocation).
  bool isAlive() const override;

  /// Use `allocate`.
  CudaDeviceTensor(DType dtype, llvm::ArrayRef<int64_t> shape, void *address,
                   size_t bytes, uint64_t session)
      : DeviceValue(dtype, shape, address, bytes), session(session) {}

private:
  uint64_t session;
};

} // namespace kiln

#endif // KILN_COMPILER_DEVICE_DEVICETENSOR_H
