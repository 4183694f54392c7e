/*===- graphs.c - CUDA graphs: capture, instantiate, update, launch -------===*
 *
 * A graph is captured from the stream its work is queued on, instantiated
 * once, and replayed with one cuGraphLaunch. Between replays a kernel
 * node's parameters can be set in place; work whose parameters live where
 * the runtime cannot reach them (cuBLAS's) is captured again and the
 * instantiated graph updated from that capture.
 *
 *===----------------------------------------------------------------------===*/

#include "driver.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

struct kiln_rt_cuda_graph {
  CUgraph graph; /* what was captured: its nodes are the handles given out */
  CUgraphExec exec;
  uint64_t session; /* a shutdown took the handles of older ones */
  /* The live graphs, which a shutdown destroys (a CUgraph is not the
   * context's, and would leak). */
  struct kiln_rt_cuda_graph *previous, *next;
};

static pthread_mutex_t live_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct kiln_rt_cuda_graph *live;

static void link_live(kiln_rt_cuda_graph *graph) {
  pthread_mutex_lock(&live_mutex);
  graph->next = live;
  if (live)
    live->previous = graph;
  live = graph;
  pthread_mutex_unlock(&live_mutex);
}

/* Unlinks `graph` and destroys its driver objects, if it still has them. */
static void release(kiln_rt_cuda_graph *graph) {
  pthread_mutex_lock(&live_mutex);
  if (graph->previous)
    graph->previous->next = graph->next;
  else if (live == graph)
    live = graph->next;
  if (graph->next)
    graph->next->previous = graph->previous;
  graph->previous = graph->next = NULL;
  if (graph->exec)
    kiln_cuda.cuGraphExecDestroy(graph->exec);
  if (graph->graph)
    kiln_cuda.cuGraphDestroy(graph->graph);
  graph->exec = NULL;
  graph->graph = NULL;
  pthread_mutex_unlock(&live_mutex);
}

void kiln_cuda_release_graphs(void) {
  while (live)
    release(live); /* the handles stay, empty, with their owners */
}

/* Each thread's capture stream, made on its first capture and kept until
 * the shutdown: a stream that cuBLAS's handle was last set to is never
 * destroyed while the handle lives. */
typedef struct capture_stream {
  kiln_rt_cuda_stream *stream;
  struct capture_stream *next;
} capture_stream;
static capture_stream *capture_streams; /* under live_mutex */
static _Thread_local kiln_rt_cuda_stream *thread_capture_stream;
static _Thread_local uint64_t thread_capture_session;

kiln_rt_status kiln_rt_cuda_capture_stream(kiln_rt_cuda_stream **out) {
  kiln_rt_status status = kiln_cuda_enter("kiln_rt_cuda_capture_stream");
  if (status)
    return status;
  if (!out)
    return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT,
                               "kiln_rt_cuda_capture_stream: stream is NULL");
  uint64_t session = kiln_rt_cuda_session();
  if (thread_capture_stream && thread_capture_session == session) {
    *out = thread_capture_stream;
    return KILN_RT_SUCCESS;
  }
  capture_stream *entry = calloc(1, sizeof(*entry));
  if (!entry)
    return kiln_rt_status_make(
        KILN_RT_OUT_OF_MEMORY,
        "kiln_rt_cuda_capture_stream: out of host memory");
  status = kiln_rt_cuda_stream_create(&entry->stream);
  if (status) {
    free(entry);
    return status;
  }
  pthread_mutex_lock(&live_mutex);
  entry->next = capture_streams;
  capture_streams = entry;
  pthread_mutex_unlock(&live_mutex);
  thread_capture_stream = entry->stream;
  thread_capture_session = session;
  *out = entry->stream;
  return KILN_RT_SUCCESS;
}

void kiln_cuda_release_capture_streams(void) {
  pthread_mutex_lock(&live_mutex);
  while (capture_streams) {
    capture_stream *entry = capture_streams;
    capture_streams = entry->next;
    kiln_cuda.cuStreamDestroy_v2(entry->stream->handle);
    free(entry->stream);
    free(entry);
  }
  pthread_mutex_unlock(&live_mutex);
}

int kiln_rt_cuda_graphs_available(void) {
  return kiln_cuda_entered("kiln_rt_cuda_graphs_available") &&
         kiln_cuda.has_graphs;
}

/* Enters the runtime for `api` on a graph of this session. */
static kiln_rt_status enter_graph(const char *api,
                                  const kiln_rt_cuda_graph *graph) {
  KILN_RT_RETURN_IF_ERROR(kiln_cuda_enter(api));
  if (!graph)
    return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT, "%s: graph is NULL",
                               api);
  if (graph->session != kiln_rt_cuda_session() || !graph->exec)
    return kiln_rt_status_make(
        KILN_RT_INVALID_ARGUMENT,
        "%s: the graph is from an earlier session of the "
        "CUDA runtime",
        api);
  return KILN_RT_SUCCESS;
}

static _Atomic uint64_t captures, launches, node_updates, graph_updates;

void kiln_rt_cuda_get_graph_stats(kiln_rt_cuda_graph_stats *stats) {
  if (!stats)
    return;
  stats->captures = atomic_load(&captures);
  stats->launches = atomic_load(&launches);
  stats->node_updates = atomic_load(&node_updates);
  stats->graph_updates = atomic_load(&graph_updates);
}

kiln_rt_status kiln_rt_cuda_capture_begin(kiln_rt_cuda_stream *stream) {
  KILN_RT_RETURN_IF_ERROR(kiln_cuda_enter("kiln_rt_cuda_capture_begin"));
  if (!kiln_cuda.has_graphs)
    return kiln_rt_status_make(KILN_RT_UNAVAILABLE,
                               "kiln_rt_cuda_capture_begin: the driver has no "
                               "graphs (CUDA 11.3 or later)");
  return KILN_CUDA_CALL(
      cuStreamBeginCapture_v2,
      (kiln_cuda_stream_handle(stream), CU_STREAM_CAPTURE_MODE_THREAD_LOCAL));
}

/* The capture status of `stream`, and the nodes its next work depends on. */
static kiln_rt_status capture_info(CUstream stream, int *capturing,
                                   const CUgraphNode **dependencies,
                                   size_t *count) {
  unsigned long long id = 0;
  CUgraph graph = NULL;
  const void *edges = NULL;
  if (kiln_cuda.cuStreamGetCaptureInfo_v3)
    return KILN_CUDA_CALL(
        cuStreamGetCaptureInfo_v3,
        (stream, capturing, &id, &graph, dependencies, &edges, count));
  return KILN_CUDA_CALL(cuStreamGetCaptureInfo_v2,
                        (stream, capturing, &id, &graph, dependencies, count));
}

int kiln_cuda_stream_capturing(CUstream stream) {
  int capturing = 0;
  const CUgraphNode *dependencies = NULL;
  size_t count = 0;
  if (!kiln_cuda.has_graphs)
    return 0;
  /* A failed query says "not capturing". */
  kiln_rt_status status =
      capture_info(stream, &capturing, &dependencies, &count);
  int answered = !status;
  kiln_rt_status_free(status);
  return answered && capturing == CU_STREAM_CAPTURE_STATUS_ACTIVE;
}

kiln_rt_status kiln_rt_cuda_capture_last_node(kiln_rt_cuda_stream *stream,
                                              kiln_rt_cuda_graph_node **node) {
  kiln_rt_status status = kiln_cuda_enter("kiln_rt_cuda_capture_last_node");
  if (status)
    return status;
  if (!node)
    return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT,
                               "kiln_rt_cuda_capture_last_node: node is NULL");
  int capturing = 0;
  const CUgraphNode *dependencies = NULL;
  size_t count = 0;
  status = capture_info(kiln_cuda_stream_handle(stream), &capturing,
                        &dependencies, &count);
  if (status)
    return status;
  /* Work queued in order on one stream leaves exactly one dependency: the
   * node it added last. */
  if (capturing != CU_STREAM_CAPTURE_STATUS_ACTIVE || count != 1 ||
      !dependencies)
    return kiln_rt_status_make(
        KILN_RT_INVALID_ARGUMENT,
        "kiln_rt_cuda_capture_last_node: the stream is not "
        "capturing one chain of work (status %d, %zu "
        "dependencies)",
        capturing, count);
  *node = (kiln_rt_cuda_graph_node *)dependencies[0];
  return KILN_RT_SUCCESS;
}

kiln_rt_status kiln_rt_cuda_capture_end(kiln_rt_cuda_stream *stream,
                                        kiln_rt_status failed,
                                        kiln_rt_cuda_graph **out) {
  kiln_rt_status status = kiln_cuda_enter("kiln_rt_cuda_capture_end");
  if (status && failed) { /* `failed` says more */
    kiln_rt_status_free(status);
    return failed;
  }
  if (status)
    return status;
  CUgraph graph = NULL;
  CUresult ended =
      kiln_cuda.cuStreamEndCapture(kiln_cuda_stream_handle(stream), &graph);
  if (failed || ended != CUDA_SUCCESS || !out) {
    if (graph)
      kiln_cuda.cuGraphDestroy(graph);
    if (failed)
      return failed;
    if (!out)
      return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT,
                                 "kiln_rt_cuda_capture_end: graph is NULL");
    return kiln_cuda_check(ended, "cuStreamEndCapture");
  }
  kiln_rt_cuda_graph *result = calloc(1, sizeof(*result));
  if (!result) {
    kiln_cuda.cuGraphDestroy(graph);
    return kiln_rt_status_make(KILN_RT_OUT_OF_MEMORY,
                               "kiln_rt_cuda_capture_end: out of host memory");
  }
  result->graph = graph;
  result->session = kiln_rt_cuda_session();
  status =
      KILN_CUDA_CALL(cuGraphInstantiateWithFlags, (&result->exec, graph, 0));
  if (status) {
    kiln_cuda.cuGraphDestroy(graph);
    free(result);
    return status;
  }
  link_live(result);
  atomic_fetch_add(&captures, 1);
  *out = result;
  return KILN_RT_SUCCESS;
}

kiln_rt_status kiln_rt_cuda_graph_set_kernel_params(
    kiln_rt_cuda_graph *graph, kiln_rt_cuda_graph_node *node,
    kiln_rt_cuda_function *function, const unsigned grid[3],
    const unsigned block[3], void **params) {
  kiln_rt_status status =
      enter_graph("kiln_rt_cuda_graph_set_kernel_params", graph);
  if (status)
    return status;
  if (!node || !function || !grid || !block)
    return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT,
                               "kiln_rt_cuda_graph_set_kernel_params: needs a "
                               "graph, a node, a function, a grid and a block");
  CUDA_KERNEL_NODE_PARAMS update = {0};
  update.func = function->handle;
  update.gridDimX = grid[0];
  update.gridDimY = grid[1];
  update.gridDimZ = grid[2];
  update.blockDimX = block[0];
  update.blockDimY = block[1];
  update.blockDimZ = block[2];
  update.kernelParams = params;
  status = KILN_CUDA_CALL(cuGraphExecKernelNodeSetParams_v2,
                          (graph->exec, (CUgraphNode)node, &update));
  if (status)
    return kiln_status_append(status, " (kernel \"%s\")", function->name);
  atomic_fetch_add(&node_updates, 1);
  return KILN_RT_SUCCESS;
}

kiln_rt_status kiln_rt_cuda_graph_update(kiln_rt_cuda_graph *graph,
                                         kiln_rt_cuda_graph *recaptured) {
  kiln_rt_status status = enter_graph("kiln_rt_cuda_graph_update", graph);
  if (!status && (!recaptured || recaptured == graph ||
                  recaptured->session != graph->session))
    status =
        kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT,
                            "kiln_rt_cuda_graph_update: needs another graph "
                            "of this session");
  if (recaptured == graph)
    return status; /* never destroy the graph being updated */
  if (!status) {
    CUgraphExecUpdateResultInfo info = {0};
    status = KILN_CUDA_CALL(cuGraphExecUpdate_v2,
                            (graph->exec, recaptured->graph, &info));
    if (status)
      status = kiln_status_append(status, " (update result %d)", info.result);
    else
      atomic_fetch_add(&graph_updates, 1);
  }
  kiln_rt_cuda_graph_destroy(recaptured);
  return status;
}

kiln_rt_status kiln_rt_cuda_graph_launch(kiln_rt_cuda_graph *graph,
                                         kiln_rt_cuda_stream *stream) {
  kiln_rt_status status = enter_graph("kiln_rt_cuda_graph_launch", graph);
  if (status)
    return status;
  status = KILN_CUDA_CALL(cuGraphLaunch,
                          (graph->exec, kiln_cuda_stream_handle(stream)));
  if (!status)
    atomic_fetch_add(&launches, 1);
  return status;
}

void kiln_rt_cuda_graph_destroy(kiln_rt_cuda_graph *graph) {
  if (!graph)
    return;
  /* A shutdown destroyed the driver objects of older sessions' graphs. */
  if (graph->session == kiln_rt_cuda_session() &&
      kiln_cuda_entered("kiln_rt_cuda_graph_destroy"))
    release(graph);
  free(graph);
}
