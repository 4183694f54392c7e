//===- TsanSuppressions.cpp - what ThreadSanitizer may not report -------===//
//
// MLIR, LLVM and the OpenMP runtime that compiled kernels call are not
// instrumented: their worker threads synchronize through atomics TSan
// cannot see, and it reports races between them that are not there (in
// libomp: a pool thread's lock of a mutex that another thread initialized
// when it made the pool). Reports whose stacks pass through those libraries
// are suppressed; kiln's own code is instrumented and checked.
//
//===----------------------------------------------------------------------===//

extern "C" const char *__tsan_default_suppressions() {
  return "race:libMLIR.so\n"
         "race:libLLVM.so\n"
         "race:libomp.so\n";
}
