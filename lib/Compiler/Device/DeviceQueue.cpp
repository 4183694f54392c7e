//===- DeviceQueue.cpp - work queued on the CUDA device -------------------===//

#include "Compiler/Device/DeviceQueue.h"
#include "Support/RuntimeError.h"
#include "kiln_rt/kiln_rt_cuda.h"

#include <deque>
#include <mutex>
#include <string>
#include <vector>

using namespace kiln;

namespace {
struct QueuedRun {
  std::string label;
  kiln_rt_cuda_event *done;
};

struct Queue {
  std::mutex mutex;
  std::deque<QueuedRun> runs;
  /// Events waited for, to record again.
  std::vector<kiln_rt_cuda_event *> spare;
  /// The runtime session the events belong to.
  uint64_t session = 0;

  /// Events of an earlier session died with it: their handles are freed
  /// (the driver may refuse them), and the runs they followed are gone.
  void dropStale() {
    uint64_t now = kiln_rt_cuda_session();
    if (session == now)
      return;
    for (const QueuedRun &run : runs)
      kiln_rt_status_free(kiln_rt_cuda_event_destroy(run.done));
    for (kiln_rt_cuda_event *event : spare)
      kiln_rt_status_free(kiln_rt_cuda_event_destroy(event));
    runs.clear();
    spare.clear();
    session = now;
  }

  /// Waits for the oldest run; on its failure, every later run (which may
  /// have read its results) is dropped too.
  llvm::Error waitOldest() {
    QueuedRun run = std::move(runs.front());
    runs.pop_front();
    kiln_rt_status status = kiln_rt_cuda_event_synchronize(run.done);
    spare.push_back(run.done);
    if (!status)
      return llvm::Error::success();
    llvm::Error error = takeRuntimeError(status);
    std::string message = run.label + ": " + llvm::toString(std::move(error));
    for (const QueuedRun &later : runs)
      spare.push_back(later.done);
    runs.clear();
    return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
  }
};

Queue &getQueue() {
  static Queue *queue = new Queue();
  return *queue;
}
} // namespace

llvm::Error kiln::noteQueuedRun(llvm::StringRef label) {
  Queue &queue = getQueue();
  std::lock_guard<std::mutex> lock(queue.mutex);
  queue.dropStale();
  kiln_rt_cuda_event *event = nullptr;
  if (!queue.spare.empty()) {
    event = queue.spare.back();
    queue.spare.pop_back();
  } else if (kiln_rt_status status = kiln_rt_cuda_event_create(&event)) {
    return takeRuntimeError(status);
  }
  if (kiln_rt_status status = kiln_rt_cuda_event_record(event, nullptr)) {
    queue.spare.push_back(event);
    return takeRuntimeError(status);
  }
  queue.runs.push_back({label.str(), event});
  if (queue.runs.size() > kMaxQueuedRuns)
    return queue.waitOldest();
  return llvm::Error::success();
}

llvm::Error kiln::waitForDevice() {
  if (!kiln_rt_cuda_is_initialized())
    return llvm::Error::success();
  Queue &queue = getQueue();
  std::lock_guard<std::mutex> lock(queue.mutex);
  queue.dropStale();
  while (!queue.runs.empty())
    if (llvm::Error e = queue.waitOldest())
      return e;
  // Copies queued after the last run.
  if (kiln_rt_status status = kiln_rt_cuda_synchronize())
    return takeRuntimeError(status);
  return llvm::Error::success();
}
