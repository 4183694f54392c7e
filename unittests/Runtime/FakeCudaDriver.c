/*===- FakeCudaDriver.c - a CUDA driver stand-in for the runtime's tests --===*
 *
 * Implements the driver entry points runtime/cuda uses on host memory, so
 * that the runtime's own logic (loading, caching, allocation, error
 * reporting) is tested on machines without a GPU. Kernels do not run: a
 * launch is recorded (fake_cuda_last_launch). FAKE_CUDA_FAIL=NAME makes
 * the entry point NAME fail with FAKE_CUDA_FAIL_CODE (default 2, out of
 * memory), every time or FAKE_CUDA_FAIL_COUNT times. A PTX text is accepted if
 * it has ".version"; its kernels are the names after ".entry".
 *
 * Graphs: a capturing stream records its launches, copies and memsets (and
 * the stand-in cuBLAS's products, through fake_cuda_capture_host) as
 * nodes; a graph launch replays them in order, each launch through the
 * same parameter checks as a direct one. Calls that a real driver refuses
 * during a capture (allocation, frees, waits) fail and invalidate it.
 * Another stream joins a capture by waiting on an event recorded in it
 * (its work goes into the same graph), and must be joined back (the
 * capturing stream waits on an event recorded after its last work) before
 * the capture ends, else the end fails as CUDA's does (unjoined).
 *
 * fake_cuda_hang_stream (for the stand-in NCCL's FAKE_NCCL_HANG) makes a
 * stream's later work never end: its events never complete, streams that
 * wait on them hang too, and a host wait for them blocks forever.
 * FAKE_CUDA_HANG_GRAPHS=1 does the same to a stream that launches a graph.
 *
 * FAKE_CUDA_TIMING=1 (for timing the runtime's host side, e.g.
 * bench/gpu/graph_overhead.py): a graph launch only counts, as a real one
 * only queues; the stand-in cuBLAS computes nothing.
 *
 * Real GPUs are tested through the device tool (lit feature `cuda`).
 *
 *===----------------------------------------------------------------------===*/

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "FakeFailAt.h"

typedef int CUresult;

/* FAKE_CUDA_FAIL_AT=N: the Nth call to any entry point (from 1) fails,
 * and says so on stderr ("fake-cuda: call N (NAME) fails"), for fault
 * injection over whole runs; FAKE_CUDA_COUNT_CALLS=1 prints the number of
 * calls at exit ("fake-cuda: N calls"); fake_cuda_calls() is the count so
 * far. */
static long calls;
/* Streams capturing now (any refuses the calls a capture cannot hold). */
static int capturing_streams;
/* The count so far, for faults at a point of a run in the same process. */
long fake_cuda_calls(void) { return calls; }
static void print_calls(void) {
  fprintf(stderr, "fake-cuda: %ld calls\n", calls);
}

static int fails_at(const char *name) {
  static int counting;
  if (!counting) {
    counting = 1;
    const char *count = getenv("FAKE_CUDA_COUNT_CALLS");
    if (count && *count == '1')
      atexit(print_calls);
  }
  return fake_fails_at(&calls, "FAKE_CUDA_FAIL_AT", "fake-cuda", name,
                       capturing_streams > 0);
}

/* FAKE_CUDA_FAIL_COUNT=N: fail only the next N calls (read when set). */
static int fails(const char *name) {
  if (fails_at(name))
    return 1;
  const char *which = getenv("FAKE_CUDA_FAIL");
  if (!which || strcmp(which, name) != 0)
    return 0;
  static const char *seen;
  static int left;
  const char *count = getenv("FAKE_CUDA_FAIL_COUNT");
  if (!count)
    return 1;
  if (seen != count) { /* a new setting */
    seen = count;
    left = atoi(count);
  }
  return left-- > 0;
}

static CUresult failure(void) {
  const char *code = getenv("FAKE_CUDA_FAIL_CODE");
  return code ? atoi(code) : 2;
}

#define FAKE_ENTRY(name)                                                       \
  if (fails(#name))                                                            \
  return failure()

/* --- Capture state ------------------------------------------------------ */

enum { NODE_KERNEL, NODE_COPY, NODE_COPY_2D, NODE_MEMSET, NODE_HOST };
enum { COPY_H2D, COPY_D2H, COPY_D2D };
#define MAX_PARAMS 512

typedef struct fake_node {
  int kind, index;
  /* kernel */
  void *function;
  unsigned dims[6];
  int param_count;
  unsigned long long words[MAX_PARAMS]; /* each parameter, by value */
  /* copy, memset; a 2D copy: `bytes` of each of `height` rows */
  int direction;
  void *dst;
  const void *src;
  size_t bytes;
  unsigned char value;
  size_t dst_pitch, src_pitch, height;
  /* host */
  void (*fn)(void *);
  void *data; /* owned: each graph and exec has its copy */
  size_t data_bytes;
} fake_node;

/* A copy of `node`, with its own host data. */
static fake_node *clone_node(const fake_node *node) {
  fake_node *copy = malloc(sizeof(*copy));
  memcpy(copy, node, sizeof(*copy));
  if (node->kind == NODE_HOST) {
    copy->data = malloc(node->data_bytes);
    memcpy(copy->data, node->data, node->data_bytes);
  }
  return copy;
}
static void free_node(fake_node *node) {
  if (node->kind == NODE_HOST)
    free(node->data);
  free(node);
}

typedef struct fake_graph {
  fake_node **nodes;
  int count, capacity;
} fake_graph;

typedef struct fake_stream {
  fake_graph *capture; /* while capturing, or joined to a capture */
  int invalidated;
  unsigned long long id;
  /* A stream joined to another's capture (by waiting on an event recorded
   * in it): the nodes it added, and how many of them the capturing stream
   * has waited for (it must wait for all before the capture ends). */
  int joined, added, joined_back;
  /* Work queued after a collective that never ends (fake_cuda_hang_stream)
   * never ends either. */
  int hung;
} fake_stream;

/* An event: its time (for cuEventElapsedTime), the stream it was last
 * recorded on, and the capture it was recorded in. */
typedef struct fake_event {
  float time;
  fake_stream *stream;
  fake_graph *capture;
  int added; /* the stream's nodes when it was recorded */
  int hung;
} fake_event;

/* Streams joined to a capture, to be checked when it ends. */
#define MAX_JOINED 16
static fake_stream *joined_streams[MAX_JOINED];

static fake_stream legacy_stream;
static fake_stream *stream_of(void *stream) {
  return stream ? (fake_stream *)stream : &legacy_stream;
}
static fake_node *add_node(void *stream, int kind) {
  fake_graph *graph = stream_of(stream)->capture;
  if (graph->count == graph->capacity) {
    graph->capacity = graph->capacity ? 2 * graph->capacity : 16;
    graph->nodes = realloc(graph->nodes, graph->capacity * sizeof(void *));
  }
  fake_node *node = calloc(1, sizeof(*node));
  node->kind = kind;
  node->index = graph->count;
  ++stream_of(stream)->added;
  graph->nodes[graph->count++] = node;
  return node;
}

static int is_capturing(void *stream) {
  return stream_of(stream)->capture != NULL;
}
/* For the stand-in cuBLAS. */
int fake_cuda_is_capturing(void *stream) { return is_capturing(stream); }

/* A call that a capture cannot hold fails (900). */
static int refused_in_capture(void) { return capturing_streams > 0; }
#define FAKE_NOT_IN_CAPTURE()                                                  \
  if (refused_in_capture())                                                    \
  return 900 /* CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED */

CUresult cuGetErrorName(CUresult error, const char **name) {
  switch (error) {
  case 1:
    *name = "CUDA_ERROR_INVALID_VALUE";
    return 0;
  case 2:
    *name = "CUDA_ERROR_OUT_OF_MEMORY";
    return 0;
  case 100:
    *name = "CUDA_ERROR_NO_DEVICE";
    return 0;
  case 218:
    *name = "CUDA_ERROR_INVALID_PTX";
    return 0;
  case 500:
    *name = "CUDA_ERROR_NOT_FOUND";
    return 0;
  case 700:
    *name = "CUDA_ERROR_ILLEGAL_ADDRESS";
    return 0;
  }
  *name = NULL;
  return 1;
}

CUresult cuGetErrorString(CUresult error, const char **text) {
  switch (error) {
  case 1:
    *text = "invalid argument";
    return 0;
  case 2:
    *text = "out of memory";
    return 0;
  case 100:
    *text = "no CUDA-capable device is detected";
    return 0;
  case 218:
    *text = "a PTX JIT compilation failed";
    return 0;
  case 500:
    *text = "named symbol not found";
    return 0;
  case 700:
    *text = "an illegal memory access was encountered";
    return 0;
  }
  *text = NULL;
  return 1;
}

static int initialized;
CUresult cuInit(unsigned flags) {
  FAKE_ENTRY(cuInit);
  initialized = 1;
  return flags == 0 ? 0 : 1;
}
CUresult cuDeviceGetCount(int *count) {
  FAKE_ENTRY(cuDeviceGetCount);
  *count = initialized ? 1 : 0;
  return initialized ? 0 : 3;
}
CUresult cuDeviceGet(int *device, int ordinal) {
  FAKE_ENTRY(cuDeviceGet);
  *device = ordinal;
  return ordinal == 0 ? 0 : 101;
}
CUresult cuDeviceGetName(char *name, int length, int device) {
  FAKE_ENTRY(cuDeviceGetName);
  snprintf(name, (size_t)length, "kiln fake device %d", device);
  return 0;
}
CUresult cuDeviceGetAttribute(int *value, int attribute, int device) {
  FAKE_ENTRY(cuDeviceGetAttribute);
  switch (attribute) {
  case 1:
    *value = 1024;
    return 0; /* max threads per block */
  case 10:
    *value = 32;
    return 0; /* warp size */
  case 16:
    *value = 108;
    return 0; /* multiprocessors */
  case 75:
    *value = 8;
    return 0; /* compute capability */
  case 76:
    *value = 0;
    return 0;
  }
  return 1;
}
CUresult cuDeviceTotalMem_v2(size_t *bytes, int device) {
  FAKE_ENTRY(cuDeviceTotalMem_v2);
  *bytes = (size_t)40 << 30;
  return 0;
}

static int context_object;
int fake_cuda_retained;
CUresult cuDevicePrimaryCtxRetain(void **context, int device) {
  FAKE_ENTRY(cuDevicePrimaryCtxRetain);
  *context = &context_object;
  ++fake_cuda_retained;
  return 0;
}
CUresult cuDevicePrimaryCtxRelease_v2(int device) {
  --fake_cuda_retained;
  return 0;
}
CUresult cuCtxSetCurrent(void *context) {
  FAKE_ENTRY(cuCtxSetCurrent);
  return context == &context_object ? 0 : 201;
}
/* Calls that make the host wait for the device, so far. */
static long waits;
long fake_cuda_waits(void) { return waits; }
static int any_hung(void);
static void wait_forever(void);
CUresult cuCtxSynchronize(void) {
  FAKE_ENTRY(cuCtxSynchronize);
  FAKE_NOT_IN_CAPTURE();
  ++waits;
  if (any_hung())
    wait_forever();
  return 0;
}

/* A module: its PTX text, searched for ".entry NAME(". */
typedef struct fake_module {
  char *ptx;
} fake_module;
int fake_cuda_modules_loaded;

CUresult cuModuleLoadDataEx(void **module, const void *image, unsigned count,
                            int *options, void **values) {
  FAKE_ENTRY(cuModuleLoadDataEx);
  const char *ptx = image;
  if (!strstr(ptx, ".version")) {
    for (unsigned i = 0; i < count; ++i)
      if (options[i] == 5) /* CU_JIT_ERROR_LOG_BUFFER */
        snprintf(values[i], 64, "ptxas fatal: no .version directive");
    return 218;
  }
  fake_module *m = malloc(sizeof(*m));
  m->ptx = strdup(ptx);
  *module = m;
  ++fake_cuda_modules_loaded;
  return 0;
}
CUresult cuModuleUnload(void *module) {
  fake_module *m = module;
  free(m->ptx);
  free(m);
  --fake_cuda_modules_loaded;
  return 0;
}
CUresult cuModuleGetFunction(void **function, void *module, const char *name) {
  FAKE_ENTRY(cuModuleGetFunction);
  fake_module *m = module;
  char pattern[300];
  snprintf(pattern, sizeof(pattern), ".entry %s(", name);
  char *found = strstr(m->ptx, pattern);
  if (!found)
    return 500;
  *function = found;
  return 0;
}

/* Live allocations, for checking launch parameters. */
#define MAX_BLOCKS 4096
static struct {
  unsigned long long ptr;
  size_t bytes;
} blocks[MAX_BLOCKS];
int fake_cuda_allocations;

CUresult cuMemAlloc_v2(unsigned long long *ptr, size_t bytes) {
  FAKE_ENTRY(cuMemAlloc_v2);
  FAKE_NOT_IN_CAPTURE();
  void *p = malloc(bytes);
  if (!p)
    return 2;
  for (int i = 0; i < MAX_BLOCKS; ++i)
    if (!blocks[i].ptr) {
      blocks[i].ptr = (unsigned long long)(size_t)p;
      blocks[i].bytes = bytes;
      break;
    }
  ++fake_cuda_allocations;
  *ptr = (unsigned long long)(size_t)p;
  return 0;
}
CUresult cuMemFree_v2(unsigned long long ptr) {
  FAKE_ENTRY(cuMemFree_v2);
  FAKE_NOT_IN_CAPTURE();
  for (int i = 0; i < MAX_BLOCKS; ++i)
    if (blocks[i].ptr == ptr)
      blocks[i].ptr = 0;
  free((void *)(size_t)ptr);
  --fake_cuda_allocations;
  return 0;
}

static int is_device_pointer(unsigned long long ptr) {
  for (int i = 0; i < MAX_BLOCKS; ++i)
    if (blocks[i].ptr && ptr >= blocks[i].ptr &&
        ptr < blocks[i].ptr + blocks[i].bytes + 1)
      return 1;
  return 0;
}
/* For tests that tell device addresses from other parameter words. */
int fake_cuda_is_device_pointer(unsigned long long ptr) {
  return is_device_pointer(ptr);
}
/* Bytes copied in each direction so far (what crossed "PCIe"). */
static unsigned long long h2d_bytes, d2h_bytes;
unsigned long long fake_cuda_h2d_bytes(void) { return h2d_bytes; }
unsigned long long fake_cuda_d2h_bytes(void) { return d2h_bytes; }
static void copy(int direction, void *dst, const void *src, size_t bytes) {
  memmove(dst, src, bytes);
  if (direction == COPY_H2D)
    h2d_bytes += bytes;
  else if (direction == COPY_D2H)
    d2h_bytes += bytes;
}
static CUresult queue_copy(int direction, void *dst, const void *src,
                           size_t bytes, void *stream) {
  if (!is_capturing(stream)) {
    copy(direction, dst, src, bytes);
    return 0;
  }
  fake_node *node = add_node(stream, NODE_COPY);
  node->direction = direction;
  node->dst = dst;
  node->src = src;
  node->bytes = bytes;
  return 0;
}
CUresult cuMemcpyHtoDAsync_v2(unsigned long long dst, const void *src,
                              size_t bytes, void *stream) {
  FAKE_ENTRY(cuMemcpyHtoDAsync_v2);
  return queue_copy(COPY_H2D, (void *)(size_t)dst, src, bytes, stream);
}
CUresult cuMemcpyDtoHAsync_v2(void *dst, unsigned long long src, size_t bytes,
                              void *stream) {
  FAKE_ENTRY(cuMemcpyDtoHAsync_v2);
  return queue_copy(COPY_D2H, dst, (void *)(size_t)src, bytes, stream);
}
CUresult cuMemcpyDtoDAsync_v2(unsigned long long dst, unsigned long long src,
                              size_t bytes, void *stream) {
  FAKE_ENTRY(cuMemcpyDtoDAsync_v2);
  return queue_copy(COPY_D2D, (void *)(size_t)dst, (void *)(size_t)src, bytes,
                    stream);
}
static void copy_2d(const fake_node *node) {
  for (size_t row = 0; row < node->height; ++row)
    copy(COPY_D2D, (char *)node->dst + row * node->dst_pitch,
         (const char *)node->src + row * node->src_pitch, node->bytes);
}
/* Device-to-device only: the runtime copies nothing else in 2D. */
CUresult cuMemcpy2DAsync_v2(const void *params, void *stream) {
  FAKE_ENTRY(cuMemcpy2DAsync_v2);
  const struct {
    size_t src_x, src_y;
    int src_type;
    const void *src_host;
    unsigned long long src_device;
    void *src_array;
    size_t src_pitch;
    size_t dst_x, dst_y;
    int dst_type;
    void *dst_host;
    unsigned long long dst_device;
    void *dst_array;
    size_t dst_pitch;
    size_t width, height;
  } *p = params;
  if (p->src_type != 2 || p->dst_type != 2 || p->src_x || p->src_y ||
      p->dst_x || p->dst_y || p->width > p->src_pitch ||
      p->width > p->dst_pitch || !is_device_pointer(p->src_device) ||
      !is_device_pointer(p->dst_device))
    return 1;
  fake_node local = {0}, *node = &local;
  if (is_capturing(stream))
    node = add_node(stream, NODE_COPY_2D);
  node->dst = (void *)(size_t)p->dst_device;
  node->src = (const void *)(size_t)p->src_device;
  node->bytes = p->width;
  node->height = p->height;
  node->dst_pitch = p->dst_pitch;
  node->src_pitch = p->src_pitch;
  if (node == &local)
    copy_2d(node);
  return 0;
}
CUresult cuMemsetD8Async(unsigned long long dst, unsigned char value,
                         size_t bytes, void *stream) {
  FAKE_ENTRY(cuMemsetD8Async);
  if (!is_capturing(stream)) {
    memset((void *)(size_t)dst, value, bytes);
    return 0;
  }
  fake_node *node = add_node(stream, NODE_MEMSET);
  node->dst = (void *)(size_t)dst;
  node->bytes = bytes;
  node->value = value;
  return 0;
}

/* Host work queued on `stream` (the stand-in cuBLAS's products): recorded
 * with a copy of `data` when it captures (1), else left to the caller
 * (0). */
int fake_cuda_capture_host(void *stream, void (*fn)(void *), const void *data,
                           size_t bytes) {
  if (!is_capturing(stream))
    return 0;
  fake_node *node = add_node(stream, NODE_HOST);
  node->fn = fn;
  node->data = malloc(bytes);
  memcpy(node->data, data, bytes);
  node->data_bytes = bytes;
  return 1;
}

CUresult cuStreamCreate(void **stream, unsigned flags) {
  FAKE_ENTRY(cuStreamCreate);
  *stream = calloc(1, sizeof(fake_stream));
  return 0;
}
CUresult cuStreamDestroy_v2(void *stream) {
  for (int i = 0; i < MAX_JOINED; ++i)
    if (joined_streams[i] == stream)
      joined_streams[i] = NULL;
  free(stream);
  return 0;
}
/* A wait for work that never ends: the host blocks (until a watchdog ends
 * the process). */
static void wait_forever(void) {
  for (;;)
    sleep(1);
}
CUresult cuStreamSynchronize(void *stream) {
  FAKE_ENTRY(cuStreamSynchronize);
  FAKE_NOT_IN_CAPTURE();
  ++waits;
  if (stream_of(stream)->hung)
    wait_forever();
  return 0;
}

/* Makes the work queued on `stream` from now on never end (for the stand-in
 * NCCL's FAKE_NCCL_HANG: a collective whose peer died). */
void fake_cuda_hang_stream(void *stream) { stream_of(stream)->hung = 1; }
static int any_hung(void) {
  if (legacy_stream.hung)
    return 1;
  for (int i = 0; i < MAX_JOINED; ++i)
    if (joined_streams[i] && joined_streams[i]->hung)
      return 1;
  return 0;
}

/* The last launch: grid, block, and how many parameters it had. */
unsigned fake_cuda_last_launch[6];
int fake_cuda_last_param_count;
/* Kernels run: by a direct launch, or by a graph launch's kernel nodes. */
int fake_cuda_launches;
int fake_cuda_graph_kernel_launches;

/* FAKE launch log (fake_cuda_log_launches): each kernel run, direct or from
 * a graph, with its parameter words, for comparing the two. */
typedef struct fake_logged_launch {
  const char *function;
  int count;
  unsigned long long words[MAX_PARAMS];
} fake_logged_launch;
static fake_logged_launch *launch_log;
static int log_count, log_capacity, logging;
void fake_cuda_log_launches(int on) {
  logging = on;
  log_count = 0;
}
int fake_cuda_logged_launches(void) { return log_count; }
/* The `i`th logged launch: its function's PTX from ".entry", and words. */
const char *fake_cuda_logged_launch(int i, const unsigned long long **words,
                                    int *count) {
  *words = launch_log[i].words;
  *count = launch_log[i].count;
  return launch_log[i].function;
}

/* The kernel's parameters from its PTX signature: how many, and for each
 * whether it is a pointer and its bytes. A PTX without parameter lines
 * (the unit tests') takes any parameters: -1. */
static int signature_of(void *function, int *pointer, int *bytes) {
  const char *signature = strchr((const char *)function, '(');
  const char *end = signature ? strchr(signature, ')') : NULL;
  int count = 0;
  for (const char *line = signature; line && end && line < end;) {
    const char *param = strstr(line, ".param");
    if (!param || param > end || count == MAX_PARAMS)
      break;
    const char *next = strchr(param, '\n');
    if (!next)
      next = end;
    const char *b32 = strstr(param, "32 ");
    pointer[count] = strstr(param, ".ptr") && strstr(param, ".ptr") < next;
    bytes[count] = b32 && b32 < next ? 4 : 8;
    ++count;
    line = next + 1;
  }
  return signature ? count : -1;
}

/* A launch's parameters are checked against the kernel's PTX signature:
 * each `.ptr` parameter must point into device memory allocated here, or be
 * null (an empty buffer has no memory; a real device accepts it for a
 * kernel that reads none of it). A packing error in the caller fails the
 * launch: CUDA_ERROR_INVALID_VALUE. */
static CUresult run_kernel(void *function, const unsigned dims[6], int count,
                           const int *pointer,
                           const unsigned long long *words) {
  memcpy(fake_cuda_last_launch, dims, sizeof(fake_cuda_last_launch));
  for (int i = 0; i < count; ++i)
    if (pointer[i] && words[i] != 0 && !is_device_pointer(words[i]))
      return 1;
  fake_cuda_last_param_count = count;
  if (logging) {
    if (log_count == log_capacity) {
      log_capacity = log_capacity ? 2 * log_capacity : 64;
      launch_log = realloc(launch_log, log_capacity * sizeof(*launch_log));
    }
    fake_logged_launch *entry = &launch_log[log_count++];
    entry->function = function;
    entry->count = count;
    memcpy(entry->words, words, count * sizeof(*words));
  }
  return 0;
}

/* Reads the parameters `params` points to, by the kernel's signature. */
static CUresult read_params(void *function, void **params, int *count,
                            int *pointer, unsigned long long *words) {
  int bytes[MAX_PARAMS];
  *count = signature_of(function, pointer, bytes);
  if (*count < 0) {
    *count = 0;
    return 0;
  }
  if (*count > 0 && !params)
    return 1;
  for (int i = 0; i < *count; ++i) {
    words[i] = 0;
    memcpy(&words[i], params[i], (size_t)bytes[i]);
  }
  return 0;
}

CUresult cuLaunchKernel(void *function, unsigned gx, unsigned gy, unsigned gz,
                        unsigned bx, unsigned by, unsigned bz, unsigned shared,
                        void *stream, void **params, void **extra) {
  FAKE_ENTRY(cuLaunchKernel);
  unsigned dims[6] = {gx, gy, gz, bx, by, bz};
  int pointer[MAX_PARAMS], count = 0;
  unsigned long long words[MAX_PARAMS];
  if (read_params(function, params, &count, pointer, words))
    return 1;
  if (is_capturing(stream)) {
    fake_node *node = add_node(stream, NODE_KERNEL);
    node->function = function;
    memcpy(node->dims, dims, sizeof(dims));
    node->param_count = count;
    memcpy(node->words, words, count * sizeof(*words));
    return 0;
  }
  ++fake_cuda_launches;
  return run_kernel(function, dims, count, pointer, words);
}

/* --- Graphs ------------------------------------------------------------- */

static unsigned long long next_capture_id = 1;
/* Graphs launched so far. */
int fake_cuda_graph_launches;

CUresult cuStreamBeginCapture_v2(void *stream, int mode) {
  FAKE_ENTRY(cuStreamBeginCapture_v2);
  if (!stream || is_capturing(stream))
    return 900; /* the legacy stream cannot capture; nor twice */
  fake_stream *s = stream_of(stream);
  s->capture = calloc(1, sizeof(fake_graph));
  s->invalidated = 0;
  s->id = next_capture_id++;
  ++capturing_streams;
  return 0;
}

static void destroy_graph(fake_graph *graph) {
  if (!graph)
    return;
  for (int i = 0; i < graph->count; ++i)
    free_node(graph->nodes[i]);
  free(graph->nodes);
  free(graph);
}

CUresult cuStreamEndCapture(void *stream, void **graph) {
  /* Failing or not, the capture ends. */
  int failed = fails("cuStreamEndCapture");
  fake_stream *s = stream_of(stream);
  if (!s->capture)
    return 1;
  --capturing_streams;
  fake_graph *captured = s->capture;
  s->capture = NULL;
  /* Every stream joined to the capture must have been joined back. */
  int unjoined = 0;
  for (int i = 0; i < MAX_JOINED; ++i) {
    fake_stream *joined = joined_streams[i];
    if (!joined || joined->capture != captured)
      continue;
    unjoined |= joined->added > joined->joined_back;
    joined->capture = NULL;
    joined->joined = 0;
    joined_streams[i] = NULL;
  }
  if (unjoined && !s->invalidated && !failed) {
    destroy_graph(captured);
    *graph = NULL;
    return 904; /* CUDA_ERROR_STREAM_CAPTURE_UNJOINED */
  }
  if (s->invalidated || failed) {
    destroy_graph(captured);
    *graph = NULL;
    return failed ? failure() : 901; /* CUDA_ERROR_STREAM_CAPTURE_INVALIDATED */
  }
  *graph = captured;
  return 0;
}

CUresult cuStreamGetCaptureInfo_v3(void *stream, int *status,
                                   unsigned long long *id, void **graph,
                                   void *const **dependencies,
                                   const void **edges, size_t *count) {
  FAKE_ENTRY(cuStreamGetCaptureInfo_v3);
  fake_stream *s = stream_of(stream);
  *status = s->capture ? (s->invalidated ? 2 : 1) : 0;
  if (id)
    *id = s->capture ? s->id : 0;
  if (graph)
    *graph = s->capture;
  if (edges)
    *edges = NULL;
  int nodes = s->capture ? s->capture->count : 0;
  if (dependencies)
    *dependencies = nodes ? (void *const *)&s->capture->nodes[nodes - 1] : NULL;
  if (count)
    *count = nodes ? 1 : 0;
  return 0;
}

/* An instantiated graph: its own copy of the nodes. */
typedef struct fake_exec {
  fake_graph nodes;
} fake_exec;

int fake_cuda_graphs_instantiated;
CUresult cuGraphInstantiateWithFlags(void **exec, void *graph,
                                     unsigned long long flags) {
  FAKE_ENTRY(cuGraphInstantiateWithFlags);
  fake_graph *g = graph;
  fake_exec *e = calloc(1, sizeof(*e));
  e->nodes.count = e->nodes.capacity = g->count;
  e->nodes.nodes = calloc(g->count ? g->count : 1, sizeof(void *));
  for (int i = 0; i < g->count; ++i)
    e->nodes.nodes[i] = clone_node(g->nodes[i]);
  *exec = e;
  ++fake_cuda_graphs_instantiated;
  return 0;
}

/* FAKE_CUDA_TIMING=1: the stand-ins do no work that a real device would. */
int fake_cuda_timing(void) {
  static int timing = -1;
  if (timing < 0) {
    const char *setting = getenv("FAKE_CUDA_TIMING");
    timing = setting && *setting == '1';
  }
  return timing;
}

CUresult cuGraphLaunch(void *exec, void *stream) {
  FAKE_ENTRY(cuGraphLaunch);
  if (is_capturing(stream))
    return 900;
  fake_exec *e = exec;
  ++fake_cuda_graph_launches;
  const char *hang = getenv("FAKE_CUDA_HANG_GRAPHS");
  if (hang && *hang == '1') { /* a graph whose collective never ends */
    stream_of(stream)->hung = 1;
    return 0;
  }
  if (fake_cuda_timing())
    return 0;
  for (int i = 0; i < e->nodes.count; ++i) {
    fake_node *node = e->nodes.nodes[i];
    switch (node->kind) {
    case NODE_KERNEL: {
      int pointer[MAX_PARAMS], bytes[MAX_PARAMS];
      int count = signature_of(node->function, pointer, bytes);
      if (count >= 0 && count != node->param_count)
        return 1;
      ++fake_cuda_graph_kernel_launches;
      if (count >= 0 &&
          run_kernel(node->function, node->dims, count, pointer, node->words))
        return 1;
      break;
    }
    case NODE_COPY:
      copy(node->direction, node->dst, node->src, node->bytes);
      break;
    case NODE_COPY_2D:
      copy_2d(node);
      break;
    case NODE_MEMSET:
      memset(node->dst, node->value, node->bytes);
      break;
    case NODE_HOST:
      node->fn(node->data);
      break;
    }
  }
  return 0;
}

CUresult cuGraphExecKernelNodeSetParams_v2(void *exec, void *node,
                                           const void *update) {
  FAKE_ENTRY(cuGraphExecKernelNodeSetParams_v2);
  /* The layout of CUDA_KERNEL_NODE_PARAMS. */
  const struct {
    void *func;
    unsigned dims[6];
    unsigned shared;
    void **params;
    void **extra;
    void *kern;
    void *ctx;
  } *p = update;
  fake_exec *e = exec;
  fake_node *original = node;
  if (original->index >= e->nodes.count ||
      e->nodes.nodes[original->index]->kind != NODE_KERNEL ||
      p->func != e->nodes.nodes[original->index]->function)
    return 1;
  fake_node *target = e->nodes.nodes[original->index];
  int pointer[MAX_PARAMS], count = 0;
  if (read_params(p->func, p->params, &count, pointer, target->words))
    return 1;
  target->param_count = count;
  memcpy(target->dims, p->dims, sizeof(target->dims));
  return 0;
}

CUresult cuGraphExecUpdate_v2(void *exec, void *graph, void *info) {
  FAKE_ENTRY(cuGraphExecUpdate_v2);
  fake_exec *e = exec;
  fake_graph *g = graph;
  int *result = info; /* CUgraphExecUpdateResultInfo's first field */
  int same = g->count == e->nodes.count;
  for (int i = 0; same && i < g->count; ++i)
    same = g->nodes[i]->kind == e->nodes.nodes[i]->kind &&
           g->nodes[i]->function == e->nodes.nodes[i]->function;
  if (!same) {
    *result = 2; /* CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED */
    return 910;
  }
  for (int i = 0; i < g->count; ++i) {
    free_node(e->nodes.nodes[i]);
    e->nodes.nodes[i] = clone_node(g->nodes[i]);
  }
  *result = 0;
  return 0;
}

CUresult cuGraphExecDestroy(void *exec) {
  fake_exec *e = exec;
  for (int i = 0; i < e->nodes.count; ++i)
    free_node(e->nodes.nodes[i]);
  free(e->nodes.nodes);
  free(e);
  return 0;
}

CUresult cuGraphDestroy(void *graph) {
  destroy_graph(graph);
  return 0;
}

static float event_clock;
CUresult cuEventCreate(void **event, unsigned flags) {
  FAKE_ENTRY(cuEventCreate);
  *event = calloc(1, sizeof(fake_event));
  return 0;
}
CUresult cuEventDestroy_v2(void *event) {
  free(event);
  return 0;
}
CUresult cuEventRecord(void *event, void *stream) {
  FAKE_ENTRY(cuEventRecord);
  fake_event *e = event;
  fake_stream *s = stream_of(stream);
  event_clock += 1.5f;
  e->time = event_clock;
  e->stream = s;
  e->capture = s->capture;
  e->added = s->added;
  e->hung = s->hung;
  return 0;
}
CUresult cuEventSynchronize(void *event) {
  FAKE_ENTRY(cuEventSynchronize);
  FAKE_NOT_IN_CAPTURE();
  fake_event *e = event;
  if (e->capture)
    return 907; /* CUDA_ERROR_CAPTURED_EVENT */
  ++waits;
  if (e->hung)
    wait_forever();
  return 0;
}
CUresult cuEventQuery(void *event) {
  FAKE_ENTRY(cuEventQuery);
  fake_event *e = event;
  if (e->capture)
    return 907; /* CUDA_ERROR_CAPTURED_EVENT */
  return e->hung ? 600 /* CUDA_ERROR_NOT_READY */ : 0;
}
/* Orders `stream` after `event`. In a capture, a stream that waits on an
 * event recorded in it joins the capture; the capturing stream waiting on
 * a joined stream's event joins that stream's work back. */
CUresult cuStreamWaitEvent(void *stream, void *event, unsigned flags) {
  FAKE_ENTRY(cuStreamWaitEvent);
  if (flags != 0)
    return 1;
  fake_event *e = event;
  fake_stream *s = stream_of(stream);
  if (e->hung)
    s->hung = 1;
  if (!e->capture) {
    /* Outside a capture there is nothing to order: work runs at once. */
    return s->capture ? 905 /* CUDA_ERROR_STREAM_CAPTURE_ISOLATION */ : 0;
  }
  if (e->capture != e->stream->capture)
    return 901; /* recorded in a capture that has ended */
  if (!s->capture) {
    int slot = 0;
    while (slot < MAX_JOINED && joined_streams[slot])
      ++slot;
    if (slot == MAX_JOINED)
      return 2;
    joined_streams[slot] = s;
    s->capture = e->capture;
    s->joined = 1;
    s->added = s->joined_back = 0;
    return 0;
  }
  if (s->capture != e->capture)
    return 902; /* CUDA_ERROR_STREAM_CAPTURE_MERGE */
  if (e->stream->joined && e->added > e->stream->joined_back)
    e->stream->joined_back = e->added;
  return 0;
}
CUresult cuEventElapsedTime_v2(float *ms, void *start, void *end) {
  FAKE_ENTRY(cuEventElapsedTime_v2);
  *ms = ((fake_event *)end)->time - ((fake_event *)start)->time;
  return 0;
}
