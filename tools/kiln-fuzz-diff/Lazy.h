//===- Lazy.h - a fuzz program built through the lazy C++ API ---*- C++ -*-===//

#ifndef KILN_TOOLS_FUZZ_LAZY_H
#define KILN_TOOLS_FUZZ_LAZY_H

#include "Program.h"

#include "llvm/Support/Error.h"

namespace kiln::fuzz {

/// `program`'s results, recorded with kiln::Tensor on `inputs` and
/// materialized with kiln::sync (the default device, the CPU).
llvm::Expected<std::vector<HostTensor>>
runLazy(const Program &program, llvm::ArrayRef<HostTensor> inputs);

} // namespace kiln::fuzz

#endif // KILN_TOOLS_FUZZ_LAZY_H
