//===- Device.h - where compiled programs run -------------------*- C++ -*-===//
//
// The devices kiln compiles for, the process-wide default that the lazy
// tensors use (KILN_DEVICE sets its start), and resolving a request to a
// device that exists. MLIR-free: the lazy API's header includes it.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_DEVICE_H
#define KILN_COMPILER_DEVICE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace kiln {

/// Where programs run.
enum class Device {
  Cpu,  // the default
  Cuda, // the GPU (kiln_rt_cuda.h)
  Auto, // the GPU when one is available, else the CPU
};

/// "cpu", "cuda" or "auto".
llvm::StringRef getDeviceName(Device device);
/// The device `name` spells ("cpu", "cuda", "auto"), or an error listing
/// those.
llvm::Expected<Device> parseDevice(llvm::StringRef name);

/// The device that runs a program asked for on `requested`: Cuda when the
/// CUDA runtime starts (an error, saying why, when it cannot: no driver, no
/// GPU), Auto the GPU when one is usable and the CPU otherwise.
llvm::Expected<Device> resolveDevice(Device requested);

/// The chip of the current GPU ("sm_90"), or "" when none is usable; an
/// error when the device is usable but its properties cannot be read.
llvm::Expected<std::string> getCudaChip();

/// Sets where the lazy tensors' programs run from now on (process-wide;
/// the environment's KILN_DEVICE=cpu|cuda|auto sets the start). Device::Cuda
/// fails, saying why, when the CUDA runtime cannot start; Auto then picks
/// the CPU.
llvm::Error setDevice(Device device);
/// Where the lazy tensors' programs run now: Cpu or Cuda. KILN_DEVICE=cuda
/// without a usable GPU, or a KILN_DEVICE that names no device, is reported
/// by checkDevice(), not here.
Device getDevice();
/// Whether the current device can run programs: fails when KILN_DEVICE
/// names no device.
llvm::Error checkDevice();

} // namespace kiln

#endif // KILN_COMPILER_DEVICE_H
