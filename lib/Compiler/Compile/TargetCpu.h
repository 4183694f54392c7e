//===- TargetCpu.h - the CPU that compiled kernels target -------*- C++ -*-===//
//
// The host CPU, or the model that KILN_CPU names (an LLVM CPU name such as
// x86-64-v3 or emeraldrapids): what the JIT compiles for, what the compile
// cache keys on and what an AOT module says it needs. Forcing another model
// tests, on one machine, the code another machine would run.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_COMPILE_TARGETCPU_H
#define KILN_COMPILER_COMPILE_TARGETCPU_H

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace kiln {

struct TargetCpu {
  /// LLVM's name of the CPU model.
  std::string name;
  /// Its instruction-set features, "+name" or "-name" each, sorted by name.
  std::vector<std::string> features;
  /// Whether KILN_CPU chose the model (else it is the host).
  bool forced = false;
};

/// The CPU kernels are compiled for, read once per process. An error when
/// KILN_CPU names a model LLVM does not know, or one with an instruction-set
/// feature this CPU lacks (its kernels could not run here).
llvm::Expected<const TargetCpu &> getTargetCpu();

} // namespace kiln

#endif // KILN_COMPILER_COMPILE_TARGETCPU_H
