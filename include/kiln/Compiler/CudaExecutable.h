//===- CudaExecutable.h - a kiln function compiled for a GPU ----*- C++ -*-===//
//
// Compiles an entry with -kiln-gpu-pipeline: its kernels become one PTX
// module (LLVM's NVPTX backend; no CUDA toolkit), its host code a
// HostProgram of allocations, views, copies and launches. A run copies the
// inputs to the device, executes the steps on one stream through the
// runtime (kiln_rt_cuda.h), and copies the results back. The PTX module is
// loaded on the first run. Compiling needs no GPU; running needs one.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_CUDAEXECUTABLE_H
#define KILN_COMPILER_CUDAEXECUTABLE_H

#include "kiln/Compiler/Entry.h"
#include "kiln/Compiler/HostProgram.h"

#include <memory>
#include <mutex>
#include <optional>

struct kiln_rt_cuda_module;
struct kiln_rt_cuda_function;

namespace kiln {

struct CudaCompileOptions {
  /// The GPU to generate PTX for.
  std::string chip = "sm_80";
  bool autodiffPrune = true;
  bool kernelDedup = true;
  bool verifyEachPass = false;
  /// Matmuls through cuBLAS: by default when the runtime is initialized
  /// and finds it; generated kernels otherwise.
  std::optional<bool> blas;
  /// libdevice.10.bc to link (f64 transcendentals); empty: $KILN_LIBDEVICE,
  /// and kernels that need it are refused where neither is set.
  std::string libdevice;
};

class CudaExecutable {
public:
  ~CudaExecutable();

  /// Compiles `entry` of `module` (lowered in place); `entry` as in
  /// findEntry. Entries with dynamic shapes are refused.
  static llvm::Expected<std::unique_ptr<CudaExecutable>>
  compile(mlir::ModuleOp module, llvm::StringRef entry,
          const CudaCompileOptions &options = {});

  const std::string &getEntryName() const { return entryName; }
  const std::vector<TensorSignature> &getInputs() const { return inputs; }
  const std::vector<TensorSignature> &getOutputs() const { return outputs; }
  const CompileStats &getStats() const { return stats; }
  /// The kernels, as one PTX module.
  const std::string &getPtx() const { return ptx; }

  /// Device time of a run, measured with CUDA events around its steps
  /// (copies of the inputs and results excluded).
  struct RunProfile {
    double kernelMs = 0;
    int64_t launches = 0;
  };

  /// Checks `args` against the signature and runs on the GPU (initializing
  /// the runtime if needed); fails with the runtime's message, naming the
  /// failing call, when there is no GPU or a call fails.
  llvm::Expected<std::vector<HostTensor>>
  run(llvm::ArrayRef<const HostTensor *> args,
      RunProfile *profile = nullptr) const;

private:
  CudaExecutable() = default;

  /// Loads the PTX module, looks up the kernels and uploads the constants,
  /// once.
  llvm::Error load() const;

  std::string entryName;
  std::vector<TensorSignature> inputs, outputs;
  CompileStats stats;
  std::string ptx;
  std::unique_ptr<HostProgram> program;

  mutable std::mutex loadMutex;
  /// The runtime session the handles below are from (0: not loaded).
  mutable uint64_t loadedSession = 0;
  mutable std::vector<kiln_rt_cuda_function *> kernels;
  /// Device copies of the constant slots, by slot.
  mutable std::vector<std::pair<int32_t, void *>> deviceConstants;
};

} // namespace kiln

#endif // KILN_COMPILER_CUDAEXECUTABLE_H
