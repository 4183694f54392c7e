//===- CountedRuns.h - executables run and counted for metrics *- C++ -*-===//

#ifndef KILN_LIB_LAZY_COUNTEDRUNS_H
#define KILN_LIB_LAZY_COUNTEDRUNS_H

#include "kiln/Compiler/Executable.h"
#include "kiln/Trace/Trace.h"

namespace kiln::detail {

/// Runs `executable` on `args`, counting the run, its time and (when kernel
/// timing is on) its kernels in metrics(). With `into`, as
/// Executable::runInto (`direct`: its answer for these buffers, if known).
llvm::Expected<std::vector<HostTensor>>
runCounted(const Executable &executable,
           llvm::ArrayRef<const HostTensor *> args,
           llvm::ArrayRef<HostTensor *> into = {},
           const std::vector<bool> *direct = nullptr);

/// As above, on values on the device (a CUDA executable): queued, its
/// work's errors reported where a result is read, after `label`.
llvm::Expected<std::vector<std::shared_ptr<const DeviceValue>>>
runCountedOnDevice(const Executable &executable,
                   llvm::ArrayRef<const DeviceValue *> args,
                   llvm::StringRef label);

/// `node`'s value on the CUDA device: its device copy, or its host value
/// uploaded now and kept with the node.
llvm::Expected<std::shared_ptr<const DeviceValue>>
getOnDevice(const TraceNode &node);

/// Counts one replayed step in metrics(), and the outputs it wrote into
/// donated inputs' buffers.
void countReplay(int64_t donatedBuffers = 0, int64_t donatedBytes = 0);

} // namespace kiln::detail

#endif // KILN_LIB_LAZY_COUNTEDRUNS_H
