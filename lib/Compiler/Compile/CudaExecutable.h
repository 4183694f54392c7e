//===- CudaExecutable.h - a kiln function compiled for a GPU ----*- C++ -*-===//
//
// The CUDA Executable (Executable::compile picks it). Compiles an entry
// with -kiln-gpu-pipeline: its kernels become one PTX
// module (LLVM's NVPTX backend; no CUDA toolkit), its host code a
// HostProgram of allocations, views, copies and launches. A run copies the
// inputs to the device, executes the steps on one stream through the
// runtime (kiln_rt_cuda.h), and copies the results back. The PTX module is
// loaded on the first run. Compiling needs no GPU; running needs one.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_COMPILE_CUDAEXECUTABLE_H
#define KILN_COMPILER_COMPILE_CUDAEXECUTABLE_H

#include "Compiler/Compile/HostProgram.h"
#include "Compiler/Compile/PreparedEntry.h"
#include "Compiler/Device/CudaGraphs.h"

#include <memory>
#include <mutex>

namespace kiln {

/// What a CUDA compile with `options` targets: the chip (the option, else
/// the device's, else sm_80), libdevice (the option, else KILN_LIBDEVICE;
/// it must exist), and whether matmuls go to cuBLAS.
struct CudaTarget {
  std::string chip, libdevice;
  bool blas = false;
};
llvm::Expected<CudaTarget> resolveCudaTarget(const CompileOptions &options);

/// Copies `args` to new device buffers, runs `program` (loading `ptx` once
/// per session) on them and new result buffers on the default stream, and
/// copies the results back.
llvm::Expected<std::vector<HostTensor>>
runCudaProgram(kiln_rt_program *program, llvm::StringRef ptx,
               llvm::ArrayRef<const HostTensor *> args,
               llvm::ArrayRef<TensorSignature> outputs, RunProfile *profile);

class CudaExecutable final : public Executable {
public:
  /// Compiles `entry` of `module` (lowered in place) for CUDA; the options
  /// were checked by Executable::compile. Dynamic dims are sizes the host
  /// program computes (grids included) from the inputs' at each run.
  static llvm::Expected<std::unique_ptr<CudaExecutable>>
  compile(mlir::ModuleOp module, llvm::StringRef entry,
          const CompileOptions &options);

  llvm::StringRef getPtx() const override { return ptx; }
  /// A compile-cache payload (Cache/CudaExecutableFormat.cpp): the signature,
  /// stats, chip, host program and PTX; and the executable it describes,
  /// with no MLIR involved.
  std::string serializeForCache() const;
  static llvm::Expected<std::unique_ptr<CudaExecutable>>
  loadCached(llvm::ArrayRef<char> payload);
  /// Records what the compile cache did (CompileStats::cache).
  void setCacheState(llvm::StringRef state) { stats.cache = state.str(); }

  /// For ahead-of-time modules: the host program's bytes and the chip.
  llvm::StringRef getProgramBytes() const { return programBytes; }
  llvm::StringRef getChip() const { return chip; }

  /// Copies the inputs to the device, runs the steps on one stream
  /// (initializing the runtime if needed), and copies the results back.
  using Executable::run;
  llvm::Expected<std::vector<HostTensor>>
  run(llvm::ArrayRef<const HostTensor *> args,
      RunProfile *profile = nullptr) const override;

  /// Queues the steps on values on the device and returns: no copies, the
  /// results stay there (CudaDeviceTensor), and the run is waited for
  /// where a result is read (DeviceQueue.h). Replays a CUDA graph of the
  /// steps where graphs pay (CudaGraphs.h).
  llvm::Expected<std::vector<std::shared_ptr<const DeviceValue>>>
  runOnDevice(llvm::ArrayRef<const DeviceValue *> args,
              RunProfile *profile = nullptr,
              llvm::StringRef label = {}) const override;

private:
  CudaExecutable() : Executable(Device::Cuda) {}

  std::string ptx, chip, programBytes;
  /// The steps, as the runtime runs them; it loads the PTX and uploads the
  /// constants once per session of the CUDA runtime.
  RuntimeProgram program;
  /// Its runs on the device as graph replays (CudaGraphs.h); made on the
  /// first, and destroyed before the program.
  mutable std::once_flag graphsOnce;
  mutable std::unique_ptr<CudaGraphs> graphs;
};

} // namespace kiln

#endif // KILN_COMPILER_COMPILE_CUDAEXECUTABLE_H
