//===- CpuExecutable.h - a kiln function compiled for the host -*- C++ -*-===//
//
// Compiles one function of a kiln module with -kiln-cpu-pipeline and MLIR's
// ExecutionEngine (LLVM ORC JIT, host CPU features) and runs it on host
// tensors. The kernels are optimized (-O3). The host code, which only
// sequences kernel calls and buffers, runs as a HostProgram when the entry
// is static; otherwise it goes through the -O0 code generator in an engine
// of its own. Results are caller-allocated out-params, so a run allocates
// only the outputs.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_CPUEXECUTABLE_H
#define KILN_COMPILER_CPUEXECUTABLE_H

#include "kiln/Compiler/Entry.h"
#include "kiln/Compiler/HostProgram.h"
#include "kiln/Pipelines/Pipelines.h"
#include "kiln/Support/HostTensor.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
class ExecutionEngine;
} // namespace mlir

namespace kiln {

/// How to compile.
struct CompileOptions {
  /// Dead-edge elimination in -kiln-autodiff; false is the naive derivation.
  bool autodiffPrune = true;
  /// Matmuls through the runtime's BLAS: by default when one was found.
  std::optional<bool> blas;
  /// Compile equal kernels once; false gives one function per launch.
  bool kernelDedup = true;
  /// Verify the IR after every pass, as kiln-opt does, instead of once
  /// after each stage (a third of the pass time on large programs).
  bool verifyEachPass = false;
  /// Compile the host code even when the entry could run as a HostProgram.
  bool compileHostCode = false;
  /// Map the kernels to the GPU (-kiln-map-kernels-to-gpu), then run those
  /// GPU kernels on the CPU, one thread after another
  /// (-kiln-emulate-gpu-launches): the GPU code's index arithmetic and
  /// vector paths, checked without a GPU. Matmuls are kernels then, as on
  /// the GPU.
  bool emulateGpuKernels = false;
  /// When set, the machine code is written there as ELF objects, for
  /// profilers and disassemblers: PATH.kernels.o and PATH.host.o.
  std::string objectDumpPath;
};

class CpuExecutable {
public:
  ~CpuExecutable();

  /// Compiles `entry` of `module`. The module is lowered in place. `entry`
  /// may be empty: then `main`, or else the only public function.
  static llvm::Expected<std::unique_ptr<CpuExecutable>>
  compile(mlir::ModuleOp module, llvm::StringRef entry,
          const CompileOptions &options = {});

  const std::string &getEntryName() const { return entryName; }
  const std::vector<TensorSignature> &getInputs() const { return inputs; }
  const std::vector<TensorSignature> &getOutputs() const { return outputs; }
  const CompileStats &getStats() const { return stats; }

  /// Checks `args` against the signature and runs the function; the results
  /// are allocated here. A `profile` gets the time spent in kernels (when
  /// the host code runs as a HostProgram; compiled host code is not timed).
  llvm::Expected<std::vector<HostTensor>>
  run(llvm::ArrayRef<HostTensor> args,
      HostProgram::Profile *profile = nullptr) const;
  /// As above, on tensors held elsewhere (no copies).
  llvm::Expected<std::vector<HostTensor>>
  run(llvm::ArrayRef<const HostTensor *> args,
      HostProgram::Profile *profile = nullptr) const;

  /// Picks the entry function of `module`: `name` if given, else `main`, else
  /// the only public function.
  static llvm::Expected<std::string> findEntry(mlir::ModuleOp module,
                                               llvm::StringRef name);

private:
  CpuExecutable() = default;

  /// Sets kernelEngine: `kernelModule` (LLVM dialect) compiled at -O3.
  llvm::Error createKernelEngine(mlir::ModuleOp kernelModule,
                                 const CompileOptions &options);
  /// After the buffer stage: lowers and compiles the kernels of `module`
  /// for hostProgram. `lap` returns the ms since its last call.
  llvm::Error compileKernels(mlir::ModuleOp module,
                             const KilnCpuPipelineOptions &pipelineOptions,
                             const CompileOptions &options,
                             const std::function<double()> &lap);
  /// After the buffer stage: lowers all of `module` and compiles the kernels
  /// and the host code.
  llvm::Error compileHostCode(mlir::ModuleOp module,
                              const KilnCpuPipelineOptions &pipelineOptions,
                              const CompileOptions &options,
                              const std::function<double()> &lap);

  /// The kernels, compiled with optimization; the host code calls them.
  /// Declared first: the host engine goes first.
  std::unique_ptr<mlir::ExecutionEngine> kernelEngine;
  /// The host code, as steps (static entries) or compiled (the others).
  std::unique_ptr<HostProgram> hostProgram;
  std::unique_ptr<mlir::ExecutionEngine> engine;
  /// The packed wrapper of the entry's C interface.
  void (*entryFunction)(void **) = nullptr;
  std::string entryName;
  std::vector<TensorSignature> inputs, outputs;
  CompileStats stats;
};

} // namespace kiln

#endif // KILN_COMPILER_CPUEXECUTABLE_H
