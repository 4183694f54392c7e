//===- DeviceQueue.h - work queued on the CUDA device -----------*- C++ -*-===//
//
// Runs on the device return once their work is queued on the stream; the
// host goes on (records the next step) while the device computes. A read
// of a result, or kiln::synchronize(), waits. An error of queued work (a
// kernel's, which its launch could not report) surfaces there, attached to
// the run that failed: each run is followed by an event, and the first
// event that fails names its run. The host runs at most a few runs ahead.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_DEVICE_DEVICEQUEUE_H
#define KILN_COMPILER_DEVICE_DEVICEQUEUE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace kiln {

/// Records that the run `label` ("@main: kiln.matmul(...) : ...") has been
/// queued on the default stream. Waits for the oldest run when too many
/// are in flight (and fails with its error, if it failed).
llvm::Error noteQueuedRun(llvm::StringRef label);

/// Waits for all the work queued on the device; fails with the first
/// failed run's error, its label first. Success when the runtime was never
/// started.
llvm::Error waitForDevice();

/// How many runs may be in flight before noteQueuedRun waits.
constexpr size_t kMaxQueuedRuns = 16;

} // namespace kiln

#endif // KILN_COMPILER_DEVICE_DEVICEQUEUE_H
