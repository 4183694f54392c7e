//===- CudaGraphs.h - when a CUDA executable replays a graph ----*- C++ -*-===//
//
// A CUDA executable's runs on the device become graph replays where they
// pay: a program of at least kGraphMinCalls launches and products is run
// directly once per set of input dims (libraries set themselves up on
// their first call, which a capture cannot hold), captured on the next
// run, and replayed with one graph launch from then on.
//
// A kernel node takes moved buffers in place, but a cuBLAS product has its
// buffers baked in. A training step's weights rotate through a few
// caching-allocator blocks (the step's new weights take a block freed by
// an earlier step's), each weight with its own period, so the buffers a
// step's products take repeat with the least common multiple of those
// periods (6 for weights of periods 2 and 3). A set of input dims keeps up
// to kGraphsPerDims graphs, sharing one set of temporaries (they run in
// stream order), and replays the one whose products' buffers are where it
// captured them and whose kernel nodes need the fewest updates (a new graph
// is captured, while there is room, for buffers no graph has seen). When none
// is, the least recently used is captured again and updated. Dims whose runs
// mostly miss, or whose graph fails, go back to direct runs. When device
// memory runs out, every graph not running is destroyed first (releaseAll)
// and captured again later. KILN_CUDA_GRAPHS=0 turns graphs off; =1 uses
// them for every program with a launch.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_DEVICE_CUDAGRAPHS_H
#define KILN_COMPILER_DEVICE_CUDAGRAPHS_H

#include "kiln_rt/kiln_rt_program.h"

#include "llvm/ADT/ArrayRef.h"

#include <map>
#include <mutex>
#include <vector>

namespace kiln {

/// The fewest launches and products that make a program a graph. A
/// program of one launch replaces it with one graph launch: nothing saved,
/// and the graph holds its temporaries. From two on, a replay's host time
/// is flat (0.6 us of kiln's, plus the driver's graph launch) where direct
/// runs grow by about 1 us of kiln's, plus the driver's launch, per call
/// (bench/gpu/graph_overhead.py on the stand-in driver,
/// bench/results/gpu-graph-overhead-stand-in.json).
constexpr size_t kGraphMinCalls = 2;

/// The graphs one set of input dims keeps: each costs the host a copy of
/// the graph, not device memory.
constexpr size_t kGraphsPerDims = 8;

/// The graphs of one executable, by input dims.
class CudaGraphs {
public:
  explicit CudaGraphs(const kiln_rt_program *program);
  ~CudaGraphs();
  CudaGraphs(const CudaGraphs &) = delete;
  CudaGraphs &operator=(const CudaGraphs &) = delete;

  /// Queues a run of the loaded program on `buffers` (as
  /// kiln_rt_program_run_cuda), as a graph replay where graphs pay. On
  /// failure nothing was queued; the status (the caller's) says why.
  kiln_rt_status run(void *const *buffers, size_t count,
                     llvm::ArrayRef<int64_t> inputDims,
                     kiln_rt_profile *profile);

  /// Destroys the graphs of every executable not running now, giving their
  /// temporaries back: the runtime's hook when device memory runs out.
  /// They are captured again when their dims next run.
  static void releaseAll();

private:
  struct Graph {
    kiln_rt_program_graph *graph;
    uint64_t lastUse;
  };
  struct Entry {
    std::vector<Graph> graphs; // sharing their temporaries
    uint64_t session = 0;
    bool warm = false;   // run once directly
    bool direct = false; // graphs do not pay (or failed) for these dims
    size_t windowRuns = 0, windowMisses = 0;
    uint64_t lastUse = 0;
  };
  static void clear(Entry &entry);
  /// Replays or captures one of `entry`'s graphs, its outcome in `status`;
  /// false when the run must be direct (`status` then untouched).
  bool tryGraph(Entry &entry, void *const *buffers, size_t count,
                const int64_t *dims, kiln_rt_profile *profile,
                kiln_rt_status &status);
  void evictOldest();

  const kiln_rt_program *program;
  bool enabled;
  std::mutex mutex;
  std::map<std::vector<int64_t>, Entry> entries;
  uint64_t clock = 0;
};

} // namespace kiln

#endif // KILN_COMPILER_DEVICE_CUDAGRAPHS_H
