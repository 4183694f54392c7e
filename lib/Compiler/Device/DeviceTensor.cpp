//===- DeviceTensor.cpp - tensors in CUDA device memory -------------------===//

#include "Compiler/Device/DeviceTensor.h"
#include "Compiler/Device/DeviceQueue.h"
#include "Support/RuntimeError.h"
#include "kiln_rt/kiln_rt_cuda.h"

using namespace kiln;

llvm::Expected<std::shared_ptr<const CudaDeviceTensor>>
CudaDeviceTensor::allocate(DType dtype, llvm::ArrayRef<int64_t> shape) {
  if (kiln_rt_status status = kiln_rt_cuda_init())
    return takeRuntimeError(status);
  int64_t elements = 1;
  for (int64_t d : shape)
    elements *= d;
  size_t bytes = static_cast<size_t>(elements) * getDTypeSize(dtype);
  void *address = nullptr;
  if (bytes)
    if (kiln_rt_status status = kiln_rt_cuda_malloc(bytes, &address))
      return takeRuntimeError(status);
  return std::make_shared<const CudaDeviceTensor>(dtype, shape, address, bytes,
                                                  kiln_rt_cuda_session());
}

llvm::Expected<std::shared_ptr<const CudaDeviceTensor>>
CudaDeviceTensor::upload(const HostTensor &host) {
  llvm::Expected<std::shared_ptr<const CudaDeviceTensor>> device =
      allocate(host.getDType(), host.getShape());
  if (!device)
    return device.takeError();
  if (host.getByteSize())
    if (kiln_rt_status status =
            kiln_rt_cuda_copy_to_device((*device)->getAddress(), host.getData(),
                                        host.getByteSize(), nullptr))
      return takeRuntimeError(status);
  return device;
}

CudaDeviceTensor::~CudaDeviceTensor() {
  if (getAddress() && isAlive())
    // Nothing to report to from a destructor.
    kiln_rt_status_free(kiln_rt_cuda_free(getAddress()));
}

bool CudaDeviceTensor::isAlive() const {
  return kiln_rt_cuda_is_initialized() && kiln_rt_cuda_session() == session;
}

llvm::Expected<HostTensor> CudaDeviceTensor::download() const {
  if (!isAlive())
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "a tensor on the cuda device was lost: the cuda runtime shut down "
        "since it was computed");
  llvm::Expected<HostTensor> host =
      HostTensor::createUninitialized(getDType(), getShape());
  if (!host)
    return host.takeError();
  if (getByteSize())
    if (kiln_rt_status status = kiln_rt_cuda_copy_to_host(
            host->getData(), getAddress(), getByteSize(), nullptr))
      return takeRuntimeError(status);
  // After the runs that compute it (and any queued before them).
  if (llvm::Error e = waitForDevice())
    return std::move(e);
  return host;
}
