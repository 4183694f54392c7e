//===- AotModule.h - ahead-of-time modules: writing and running -*- C++ -*-===//
//
// kiln-compile writes one compiled entry as a module file that the runtime
// alone runs (kiln_rt_module.h): the signature, the host program and the
// kernels (CPU: a shared object linked now, loaded later with dlopen; CUDA:
// PTX). kiln-run runs such a file as an Executable, through the runtime's
// module API, without MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_COMPILE_AOTMODULE_H
#define KILN_COMPILER_COMPILE_AOTMODULE_H

#include "kiln/Compiler/Executable.h"
#include "kiln_rt/kiln_rt_module.h"

#include "mlir/IR/BuiltinOps.h"

namespace kiln {

/// Compiles `entry` of `module` (lowered in place) for `options.device`
/// (cpu or cuda) and returns the module file's bytes. Entries that are not
/// host programs (dynamic shapes, control flow) are refused, naming why.
llvm::Expected<std::string> compileAotModule(mlir::ModuleOp module,
                                             llvm::StringRef entry,
                                             const CompileOptions &options);

/// Whether `bytes` start as a module file does.
bool isAotModule(llvm::StringRef bytes);

/// A module file, loaded by the runtime, as an Executable.
class ModuleExecutable final : public Executable {
public:
  ~ModuleExecutable() override;
  static llvm::Expected<std::unique_ptr<ModuleExecutable>>
  load(llvm::StringRef path);

  using Executable::run;
  llvm::Expected<std::vector<HostTensor>>
  run(llvm::ArrayRef<const HostTensor *> args,
      RunProfile *profile = nullptr) const override;
  llvm::StringRef getPtx() const override;

private:
  explicit ModuleExecutable(Device device) : Executable(device) {}
  kiln_rt_module *module = nullptr;
};

} // namespace kiln

#endif // KILN_COMPILER_COMPILE_AOTMODULE_H
