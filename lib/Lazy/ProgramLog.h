//===- ProgramLog.h - who hears of the programs kiln::sync runs -*- C++ -*-===//
//
// kiln::sync (Tensor.cpp) reports each program it ran here, and a step
// recorder (kiln::StepRecorder, Jit.cpp) listens. The recorder is built on
// the tensors, so the tensors call down into this log, never up into it.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_LAZY_PROGRAMLOG_H
#define KILN_LIB_LAZY_PROGRAMLOG_H

#include "kiln/Compiler/Executable.h"
#include "kiln/Trace/Trace.h"

#include <memory>

namespace kiln::detail {

using ProgramListener = void (*)(const TraceProgram &program,
                                 std::shared_ptr<const Executable> executable,
                                 llvm::ArrayRef<NodeRef> outputs);

/// Makes `listener` hear of every program run from now on (one listener:
/// the step recorders').
void setProgramListener(ProgramListener listener);

/// Tells the listener, if there is one, that `program` ran and computed
/// `outputs`.
void noteProgramRan(const TraceProgram &program,
                    std::shared_ptr<const Executable> executable,
                    llvm::ArrayRef<NodeRef> outputs);

} // namespace kiln::detail

#endif // KILN_LIB_LAZY_PROGRAMLOG_H
