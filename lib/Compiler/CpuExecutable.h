//===- CpuExecutable.h - a kiln function compiled for the host -*- C++ -*-===//
//
// The CPU's Executable (Executable::compile picks it). Compiles one function of
// a kiln module with -kiln-cpu-pipeline and MLIR's ExecutionEngine (LLVM ORC
// JIT, host CPU features) and runs it on host tensors. The kernels are
// optimized (-O3). The host code, which only sequences kernel calls and
// buffers, runs as a HostProgram when the entry is static; otherwise it goes
// through the -O0 code generator in an engine of its own. Results are
// caller-allocated out-params, so a run allocates only the outputs.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_CPUEXECUTABLE_H
#define KILN_COMPILER_CPUEXECUTABLE_H

#include "Compiler/Entry.h"
#include "Compiler/HostProgram.h"
#include "kiln/Pipelines/Pipelines.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace mlir {
class ExecutionEngine;
} // namespace mlir

namespace kiln {

class CpuExecutable final : public Executable {
public:
  ~CpuExecutable() override;

  /// Compiles `entry` of `module` (lowered in place) for the CPU; the
  /// options were checked by Executable::compile.
  static llvm::Expected<std::unique_ptr<CpuExecutable>>
  compile(mlir::ModuleOp module, llvm::StringRef entry,
          const CompileOptions &options);

  using Executable::run;
  llvm::Expected<std::vector<HostTensor>>
  run(llvm::ArrayRef<const HostTensor *> args,
      RunProfile *profile = nullptr) const override;

private:
  CpuExecutable();

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
};

} // namespace kiln

#endif // KILN_COMPILER_CPUEXECUTABLE_H
