//===- ProgramLog.cpp - who hears of the programs kiln::sync runs ---------===//

#include "Lazy/ProgramLog.h"

#include <atomic>

using namespace kiln;

static std::atomic<detail::ProgramListener> programListener{nullptr};

void detail::setProgramListener(ProgramListener listener) {
  programListener.store(listener, std::memory_order_release);
}

void detail::noteProgramRan(const TraceProgram &program,
                            std::shared_ptr<const Executable> executable,
                            llvm::ArrayRef<NodeRef> outputs) {
  if (ProgramListener listener =
          programListener.load(std::memory_order_acquire))
    listener(program, std::move(executable), outputs);
}
