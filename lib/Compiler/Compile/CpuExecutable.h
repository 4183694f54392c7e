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

#ifndef KILN_COMPILER_COMPILE_CPUEXECUTABLE_H
#define KILN_COMPILER_COMPILE_CPUEXECUTABLE_H

#include "Compiler/Compile/HostProgram.h"
#include "Compiler/Compile/PreparedEntry.h"
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
namespace llvm::orc {
class LLJIT;
} // namespace llvm::orc

namespace kiln {

/// Initializes LLVM's native target and loads the libraries compiled code
/// calls (the OpenMP runtime, MLIR's memref helpers), once per process.
llvm::Error initializeJit();
/// The address of a runtime function compiled code may call by `name`
/// (MLIR's memref helpers, the kiln_rt_ BLAS entry points), or null.
void *lookupRuntimeSymbol(llvm::StringRef name);
/// Binds the kernels of `program` to the packed entry points `lookup`
/// finds by kernel name; the runtime functions come from the runtime.
llvm::Error
bindKernels(kiln_rt_program *program,
            llvm::function_ref<llvm::Expected<void *>(llvm::StringRef)> lookup);

/// Runs a bound `program` on host `args` and the caller's `results`.
llvm::Error runCpuProgram(const kiln_rt_program *program,
                          llvm::ArrayRef<const HostTensor *> args,
                          llvm::ArrayRef<HostTensor *> results,
                          RunProfile *profile);

/// What CpuExecutable::compile keeps of the kernels' machine code: nothing,
/// an object for the compile cache (loaded by a JIT linker), or a
/// position-independent object for an ahead-of-time module's shared object.
enum class KernelObject { None, ForCache, ForModule };

class CpuExecutable final : public Executable {
public:
  ~CpuExecutable() override;

  /// Compiles `entry` of `module` (lowered in place) for the CPU; the
  /// options were checked by Executable::compile. `keep` says what to keep
  /// of the kernels' object code (serializeForCache(), AotModule.cpp).
  static llvm::Expected<std::unique_ptr<CpuExecutable>>
  compile(mlir::ModuleOp module, llvm::StringRef entry,
          const CompileOptions &options,
          KernelObject keep = KernelObject::None);

  /// A compile-cache payload (Cache/CpuExecutableFormat.cpp): the signature,
  /// stats, host program and kernels' object code. None for executables
  /// that are not host programs, or not compiled forCache.
  std::optional<std::string> serializeForCache() const;
  /// The executable `payload` describes, its kernels loaded with LLVM's
  /// JIT linker: no MLIR is involved.
  static llvm::Expected<std::unique_ptr<CpuExecutable>>
  loadCached(llvm::ArrayRef<char> payload);
  /// For ahead-of-time modules: the host program's bytes (empty when the
  /// entry is not a host program) and the kernels' object code.
  llvm::StringRef getProgramBytes() const { return programBytes; }
  llvm::StringRef getKernelObject() const { return kernelObject; }
  /// Records what the compile cache did (CompileStats::cache).
  void setCacheState(llvm::StringRef state) { stats.cache = state.str(); }

  using Executable::run;
  llvm::Expected<std::vector<HostTensor>>
  run(llvm::ArrayRef<const HostTensor *> args,
      RunProfile *profile = nullptr) const override;
  llvm::Expected<std::vector<HostTensor>>
  runInto(llvm::ArrayRef<const HostTensor *> args,
          llvm::ArrayRef<HostTensor *> into, RunProfile *profile = nullptr,
          const std::vector<bool> *direct = nullptr) const override;

private:
  CpuExecutable();

  /// The shapes of a run's results: the signature's, or those computed
  /// from the arguments' where the entry has dynamic dims.
  struct ResultShapes {
    llvm::ArrayRef<TensorSignature> signature;
    std::vector<llvm::SmallVector<int64_t, 4>> computed;
    llvm::ArrayRef<int64_t> operator[](size_t r) const {
      return computed.empty() ? llvm::ArrayRef<int64_t>(signature[r].shape)
                              : llvm::ArrayRef<int64_t>(computed[r]);
    }
  };
  /// The shapes of the results of a run on `args` (checked arguments).
  llvm::Expected<ResultShapes>
  getResultShapes(llvm::ArrayRef<const HostTensor *> args) const;

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
  /// Or the kernels loaded from a compile-cache entry.
  std::unique_ptr<llvm::orc::LLJIT> cachedKernels;
  /// For serializeForCache(): the kernels' object code and the runtime
  /// functions it calls.
  bool keepForCache = false;
  bool positionIndependent = false;
  std::string kernelObject;
  std::vector<std::string> runtimeSymbolNames;
  /// The host code, as steps the runtime runs (static entries; the bytes
  /// for serializeForCache) or compiled (the others).
  RuntimeProgram program;
  std::string programBytes;
  std::unique_ptr<mlir::ExecutionEngine> engine;
  /// Result shapes and run-time shape checks, for entries with dynamic dims.
  std::optional<ShapeFunction> shapes;
  /// The packed wrapper of the entry's C interface.
  void (*entryFunction)(void **) = nullptr;
};

} // namespace kiln

#endif // KILN_COMPILER_COMPILE_CPUEXECUTABLE_H
