//===- CudaGraphs.cpp - when a CUDA executable replays a graph ------------===//

#include "Compiler/Device/CudaGraphs.h"

#include <cstdlib>
#include <cstring>
#include <set>

using namespace kiln;

namespace {

/// Graphs for every program with a launch (=1), none (=0), or those with
/// kGraphMinCalls or more (unset).
size_t getMinCalls() {
  const char *setting = std::getenv("KILN_CUDA_GRAPHS");
  if (setting && std::strcmp(setting, "0") == 0)
    return SIZE_MAX;
  if (setting && std::strcmp(setting, "1") == 0)
    return 1;
  return kGraphMinCalls;
}

/// The most input dims one executable keeps graphs for.
constexpr size_t kMaxDims = 8;
/// Every executable's graphs, for giving their temporaries back when device
/// memory runs out.
struct Registry {
  std::mutex mutex;
  std::set<CudaGraphs *> all;
};
Registry &getRegistry() {
  static Registry *registry = new Registry; // outlives static executables
  return *registry;
}

/// Every this many graph runs of one set of dims, they go back to direct
/// runs if more than half of those runs found no graph that fit.
constexpr size_t kMissWindow = 16;

} // namespace

CudaGraphs::CudaGraphs(const kiln_rt_program *program)
    : program(program),
      enabled(kiln_rt_program_num_calls(program) >= getMinCalls() &&
              kiln_rt_cuda_graphs_available()) {
  static std::once_flag hooked;
  std::call_once(hooked, [] {
    kiln_rt_cuda_set_memory_pressure_hook(&CudaGraphs::releaseAll);
  });
  Registry &registry = getRegistry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  registry.all.insert(this);
}

CudaGraphs::~CudaGraphs() {
  {
    Registry &registry = getRegistry();
    std::lock_guard<std::mutex> lock(registry.mutex);
    registry.all.erase(this);
  }
  for (auto &[dims, entry] : entries)
    clear(entry);
}

void CudaGraphs::releaseAll() {
  Registry &registry = getRegistry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  for (CudaGraphs *graphs : registry.all) {
    // One that is running (capturing, perhaps the allocation that ran out)
    // keeps its graphs: never wait for it here.
    std::unique_lock<std::mutex> busy(graphs->mutex, std::try_to_lock);
    if (!busy.owns_lock())
      continue;
    for (auto &[dims, entry] : graphs->entries)
      clear(entry); // captured again when these dims next run
  }
}

void CudaGraphs::clear(Entry &entry) {
  for (Graph &graph : entry.graphs)
    kiln_rt_program_graph_destroy(graph.graph);
  entry.graphs.clear();
}

void CudaGraphs::evictOldest() {
  auto oldest = entries.end();
  for (auto it = entries.begin(); it != entries.end(); ++it)
    if (oldest == entries.end() || it->second.lastUse < oldest->second.lastUse)
      oldest = it;
  if (oldest == entries.end())
    return;
  clear(oldest->second);
  entries.erase(oldest);
}

bool CudaGraphs::tryGraph(Entry &entry, void *const *buffers, size_t count,
                          const int64_t *dims, kiln_rt_profile *profile,
                          kiln_rt_status &status) {
  // A shutdown of the runtime took the graphs' handles, and the libraries
  // set up by the warm-up run: start again.
  if (entry.session != kiln_rt_cuda_session()) {
    clear(entry);
    entry = Entry();
    entry.session = kiln_rt_cuda_session();
  }
  if (entry.direct)
    return false;
  if (!entry.warm) {
    entry.warm = true; // this first run of these dims sets libraries up
    return false;
  }
  auto goDirect = [&] {
    clear(entry);
    entry.direct = true;
    return false; // nothing was queued: the direct run does the work
  };
  // The graph that fits with the fewest kernel nodes to update.
  Graph *chosen = nullptr;
  size_t fewest = SIZE_MAX;
  for (Graph &graph : entry.graphs) {
    size_t moved = kiln_rt_program_graph_moved(graph.graph, buffers, count);
    if (moved < fewest) {
      fewest = moved;
      chosen = &graph;
    }
  }
  bool miss = !chosen;
  // Buffers that repeat with a period of up to kGraphsPerDims runs each
  // get a graph of their own, which then runs with no update at all.
  if ((!chosen || fewest > 0) && entry.graphs.size() < kGraphsPerDims) {
    kiln_rt_program_graph *graph = nullptr;
    if (kiln_rt_status captured = kiln_rt_program_capture_cuda(
            program, buffers, count, dims,
            entry.graphs.empty() ? nullptr : entry.graphs.front().graph,
            &graph)) {
      kiln_rt_status_free(captured); // the direct run reports any error
      return goDirect(); // a driver or library that cannot capture it
    }
    entry.graphs.push_back({graph, 0});
    chosen = &entry.graphs.back();
  } else {
    if (!chosen) { // captured again and updated: the least recently used
      chosen = &entry.graphs.front();
      for (Graph &graph : entry.graphs)
        if (graph.lastUse < chosen->lastUse)
          chosen = &graph;
    }
    if (kiln_rt_status prepared = kiln_rt_program_graph_prepare(
            chosen->graph, buffers, count, dims)) {
      kiln_rt_status_free(prepared);
      return goDirect(); // e.g. a recapture whose topology changed
    }
  }
  chosen->lastUse = ++clock;
  status = kiln_rt_program_graph_launch(chosen->graph, nullptr, profile);
  if (status) {
    // The run may be queued (a timed run fails at its wait): no second,
    // direct run; the error is the step's.
    clear(entry);
    entry.direct = true;
    return true;
  }
  entry.windowMisses += miss;
  if (++entry.windowRuns == kMissWindow) {
    bool mostlyMissed = 2 * entry.windowMisses > entry.windowRuns;
    entry.windowRuns = entry.windowMisses = 0;
    if (mostlyMissed) {
      clear(entry); // after this run, which is queued: stream-ordered
      entry.direct = true;
    }
  }
  return true;
}

kiln_rt_status CudaGraphs::run(void *const *buffers, size_t count,
                               llvm::ArrayRef<int64_t> inputDims,
                               kiln_rt_profile *profile) {
  const int64_t *dims = inputDims.empty() ? nullptr : inputDims.data();
  if (enabled) {
    std::lock_guard<std::mutex> lock(mutex);
    std::vector<int64_t> key(inputDims.begin(), inputDims.end());
    auto found = entries.find(key);
    if (found == entries.end()) {
      if (entries.size() >= kMaxDims)
        evictOldest();
      found = entries.emplace(std::move(key), Entry()).first;
    }
    Entry &entry = found->second;
    entry.lastUse = ++clock;
    kiln_rt_status status = KILN_RT_SUCCESS;
    if (tryGraph(entry, buffers, count, dims, profile, status))
      return status;
  }
  return kiln_rt_program_run_cuda(program, buffers, count, dims, nullptr,
                                  profile);
}
