//===- MetricsLine.h - the training examples' metrics line ------*- C++ -*-===//
//
// kiln::metrics() between two points of a run, as one line that tests and
// bench/gpu/training.py parse: "metrics: traced_ops N, compiles N, ...".
//
//===----------------------------------------------------------------------===//

#ifndef KILN_EXAMPLES_METRICSLINE_H
#define KILN_EXAMPLES_METRICSLINE_H

#include "kiln/Lazy/Distributed.h"
#include "kiln/Lazy/Tensor.h"

#include <cstdio>

/// Prints the metrics from `start` to `end` (counts as differences; live
/// bytes and MLIR contexts as at `end`).
inline void printMetricsLine(const kiln::Metrics &start,
                             const kiln::Metrics &end) {
  std::printf(
      "metrics: traced_ops %lld, compiles %lld, cache_hits %lld, "
      "cache_misses %lld, compile_ms %.1f, runs %lld, run_ms %.1f, "
      "live_bytes %llu, disk_hits %lld, disk_misses %lld, "
      "mlir_contexts %lld, h2d_bytes %llu, d2h_bytes %llu, "
      "device_live_bytes %llu, kernel_ms %.3f, kernel_launches "
      "%lld, graph_launches %llu, graph_captures %llu, "
      "graph_node_updates %llu\n",
      (long long)(end.tracedOps - start.tracedOps),
      (long long)(end.compiles - start.compiles),
      (long long)(end.cacheHits - start.cacheHits),
      (long long)(end.cacheMisses - start.cacheMisses),
      end.compileMs - start.compileMs, (long long)(end.runs - start.runs),
      end.runMs - start.runMs, (unsigned long long)end.liveBytes,
      (long long)(end.diskHits - start.diskHits),
      (long long)(end.diskMisses - start.diskMisses),
      (long long)end.mlirContexts,
      (unsigned long long)(end.h2dBytes - start.h2dBytes),
      (unsigned long long)(end.d2hBytes - start.d2hBytes),
      (unsigned long long)end.deviceLiveBytes, end.kernelMs - start.kernelMs,
      (long long)(end.kernelLaunches - start.kernelLaunches),
      (unsigned long long)(end.graphLaunches - start.graphLaunches),
      (unsigned long long)(end.graphCaptures - start.graphCaptures),
      (unsigned long long)(end.graphNodeUpdates - start.graphNodeUpdates));
}

/// The collectives of a data-parallel run from `start` to `end`, over
/// `steps` steps of `seconds`: per step, and the share of the step spent in
/// them (starting, moving, waiting for them: the communication that no
/// other work hid), as one line that bench/distributed parses.
inline void printCollectivesLine(const kiln::distributed::Stats &start,
                                 const kiln::distributed::Stats &end,
                                 long long steps, double seconds) {
  double perStep = steps > 0 ? 1.0 / static_cast<double>(steps) : 0.0;
  double busyMs = end.busyMs - start.busyMs;
  std::printf(
      "collectives: %.1f per step, %.0f bytes per step, %.3f ms per step in "
      "them, %.1f%% of the step\n",
      static_cast<double>(end.collectives - start.collectives) * perStep,
      static_cast<double>(end.bytes - start.bytes) * perStep, busyMs * perStep,
      seconds > 0 ? 100.0 * busyMs / (1e3 * seconds) : 0.0);
}

#endif // KILN_EXAMPLES_METRICSLINE_H
