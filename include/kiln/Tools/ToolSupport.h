//===- ToolSupport.h - internal: what kiln's own tools use ------*- C++ -*-===//
//
// INTERNAL, not installed, no compatibility promise. What kiln's own tools
// (kiln-opt, kiln-run, kiln-compile, kiln-fuzz-diff, the fuzz targets) need
// beyond the installed headers: the reference interpreter, reproducible
// random inputs, ahead-of-time modules, device uploads, the caches'
// counters and the passes' statistics. The tools include this header and
// never lib/'s private ones, so that lib/ may rearrange its rooms freely.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TOOLS_TOOLSUPPORT_H
#define KILN_TOOLS_TOOLSUPPORT_H

#include "kiln/Compiler/Executable.h"
#include "kiln/Support/HostTensor.h"
#include "kiln/Trace/Trace.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <vector>

namespace kiln::tools {

/// A run of an executable whose results take over the inputs they may
/// overwrite (Executable::getDonation): as a caller that drops its inputs
/// would run it. Each result takes the first input of its type not taken
/// yet that the plan lets it overwrite; that input is passed as a copy,
/// which becomes the result.
struct DonatedRun {
  /// The copies of the donated inputs.
  std::vector<HostTensor> copies;
  /// The arguments: the copies where donated, else the caller's inputs.
  std::vector<const HostTensor *> args;
  /// Per result: the copy it is written into, or null.
  std::vector<HostTensor *> into;
  /// How many results were written into a donated input.
  size_t donated = 0;

  /// Runs `exe` (Executable::runInto) and returns all its results.
  llvm::Expected<std::vector<HostTensor>> run(const Executable &exe,
                                              RunProfile *profile = nullptr);
};
/// Copies the inputs of `args` that `exe`'s results may take over.
std::unique_ptr<DonatedRun> prepareDonatedRun(const Executable &exe,
                                              llvm::ArrayRef<HostTensor> args);

/// The reference interpreter (lib/Reference): `func` on `inputs`, each op
/// in double and rounded to its type; kiln.vjp by finite differences.
llvm::Expected<std::vector<HostTensor>>
evaluateReference(mlir::func::FuncOp func, llvm::ArrayRef<HostTensor> inputs);

/// Argument `index`'s values from `seed`, the same on every platform
/// (uniform in [-1, 1); i1: 0 or 1; integers in [-2, 9]).
llvm::Expected<HostTensor> makeRandomInput(DType dtype,
                                           llvm::ArrayRef<int64_t> shape,
                                           uint64_t seed, size_t index);

/// `program` as the function `name` of a new kiln module.
mlir::OwningOpRef<mlir::ModuleOp> importTrace(mlir::MLIRContext &context,
                                              const TraceProgram &program,
                                              llvm::StringRef name = "main");

/// Ahead-of-time modules (`.kiln` files): `entry` of `module` compiled into
/// one, whether `bytes` are one, and one loaded to run as an Executable.
llvm::Expected<std::string> compileAotModule(mlir::ModuleOp module,
                                             llvm::StringRef entry,
                                             const CompileOptions &options);
bool isAotModule(llvm::StringRef bytes);
llvm::Expected<std::unique_ptr<Executable>> loadAotModule(llvm::StringRef path);

/// `host` copied to the CUDA device, to pass to Executable::runOnDevice.
llvm::Expected<std::shared_ptr<const DeviceValue>>
uploadToDevice(const HostTensor &host);

/// Waits for the device work queued so far; its first error, if any.
llvm::Error waitForDevice();

/// The disk cache's counters since the process started, as one JSON object
/// (cache_hits, cache_misses, cache_writes, cache_corrupt, cache_evictions,
/// cache_bytes_read, cache_bytes_written).
void writeDiskCacheStats(llvm::raw_ostream &os);

/// How many trace programs ran as an already compiled shape-generic
/// program so far in this process.
int64_t getGenericTraceHits();

/// Prints the statistics of the passes that ran (-mlir-pass-statistics)
/// with their names, which Debian's Release LLVM does not keep; false when
/// no pass recorded one.
bool printPassStatistics(llvm::raw_ostream &os);

} // namespace kiln::tools

#endif // KILN_TOOLS_TOOLSUPPORT_H
