//===- Runs.h - running executables, counted for metrics() ------*- C++ -*-===//

#ifndef KILN_LIB_LAZY_RUNS_H
#define KILN_LIB_LAZY_RUNS_H

#include "kiln/Compiler/Executable.h"

namespace kiln::detail {

/// Runs `executable` on `args`, counting the run, its time and (when kernel
/// timing is on) its kernels in metrics().
llvm::Expected<std::vector<HostTensor>>
runCounted(const Executable &executable,
           llvm::ArrayRef<const HostTensor *> args);

/// Counts one replayed step in metrics().
void countReplay();

} // namespace kiln::detail

#endif // KILN_LIB_LAZY_RUNS_H
