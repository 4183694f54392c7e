//===- Check.h - one fuzz program against the reference ---------*- C++ -*-===//
//
// Runs a program on one backend and compares every output with the
// reference interpreter's, within the tolerance its bounds give. The work
// happens in a forked child, so that a crash or a hang in the compiler is
// counted (and shrunk) rather than ending the fuzzer.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TOOLS_FUZZ_CHECK_H
#define KILN_TOOLS_FUZZ_CHECK_H

#include "Program.h"

#include "llvm/Support/Error.h"

#include <string>

namespace kiln::fuzz {

/// cpu: kiln-run's CPU pipeline; emulate-gpu: the GPU pipeline with its
/// kernels run on the CPU; lazy: recorded with kiln::Tensor; lazy-batches:
/// recorded with kiln::Tensor at several batch sizes in one process (the
/// first argument's dim 0, and every dim of its size, made 1, 2 and more),
/// so that the lazy tensors' automatic dynamic dims compile a shape-generic
/// program and run the later sizes on it; cuda: the GPU pipeline run on a
/// GPU (kiln-run --backend cuda).
enum class Backend {
  Cpu,
  CpuDonate,
  CpuRemat,
  EmulateGpu,
  Lazy,
  LazyBatches,
  Cuda
};

struct Outcome {
  enum Kind { Ok, Mismatch, CompileError, Crash } kind = Ok;
  /// What went wrong, for a person.
  std::string message;
  /// A mismatch: the first failing output's allowance (4 * error bound).
  double allowance = 0;
  /// The largest |got - reference| / allowance over the compared elements
  /// (how tight the tolerance is; a mismatch is above 1).
  double worstRatio = 0;
  /// Outputs compared, of them gradients (kiln.vjp results), and outputs
  /// left uncompared (no finite bound: a comparison that may flip).
  int compared = 0, gradientsCompared = 0, uncompared = 0;
  /// lazy-batches: the sizes run, and how many ran on a shape-generic
  /// program (the trace cache's generic hits).
  int batchesRun = 0, genericHits = 0;
  /// cpu-donate: results written into a donated input.
  int donated = 0;
};

/// The outcome of `program` on `backend`, its inputs drawn from `seed` as
/// `kiln-run --random-inputs SEED` draws them.
/// `injectError` corrupts the first compared element of the compiled
/// result by 8x its allowance first: every program whose outputs have a
/// finite bound must then mismatch (the oracle's own test).
Outcome checkProgram(const Program &program, Backend backend, uint64_t seed,
                     unsigned timeoutSeconds, bool injectError = false);

/// Whether the CUDA backend can run here (the driver loads and finds a
/// device), checked in a child process; the error says why not.
llvm::Error checkCudaDevice(unsigned timeoutSeconds);

/// `program` made as small as it can be while `checkProgram` still fails
/// the same way (delta debugging over results, ops and shapes);
/// `injectError` as for checkProgram (the shrinker's own test).
Program shrinkProgram(const Program &program, Backend backend, uint64_t seed,
                      Outcome::Kind kind, unsigned timeoutSeconds,
                      bool injectError = false);

} // namespace kiln::fuzz

#endif // KILN_TOOLS_FUZZ_CHECK_H
