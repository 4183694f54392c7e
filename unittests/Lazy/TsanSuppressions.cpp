//===- TsanSuppressions.cpp - what ThreadSanitizer may not report -------===//
//
// MLIR and LLVM are not instrumented: their worker threads synchronize
// through atomics TSan cannot see, and it reports races between them that
// are not there. Reports whose stacks pass through those libraries are
// suppressed; kiln's own code is instrumented and checked.
//
//===----------------------------------------------------------------------===//

extern "C" const char *__tsan_default_suppressions() {
  return "race:libMLIR.so\n"
         "race:libLLVM.so\n";
}
