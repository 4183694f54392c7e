//===- RuntimeError.h - the runtime's failures as llvm::Error ---*- C++ -*-===//
//
// The one bridge from the C runtime's statuses (kiln_rt.h) to llvm::Error:
// a failed kiln_rt_* call hands its status here, which keeps the message and
// frees the record. In Support, the lowest layer that links the runtime, so
// that every layer above (host tensors, devices, executables, the lazy
// frontend) and the tools share it.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_SUPPORT_RUNTIMEERROR_H
#define KILN_SUPPORT_RUNTIMEERROR_H

#include "kiln_rt/kiln_rt.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace kiln {

/// Success for a NULL `status`; else an error with its message, after
/// "`what`: " when `what` is not empty. Takes (and frees) `status`.
llvm::Error takeRuntimeError(kiln_rt_status status, llvm::StringRef what = "");

} // namespace kiln

#endif // KILN_SUPPORT_RUNTIMEERROR_H
