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
 * Real GPUs are tested through the device tool (lit feature `cuda`).
 *
 *===----------------------------------------------------------------------===*/

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "FakeFailAt.h"

typedef int CUresult;

/* FAKE_CUDA_FAIL_AT=N: the Nth call to any entry point (from 1) fails,
 * and says so on stderr ("fake-cuda: call N (NAME) fails"), for fault
 * injection over whole runs; FAKE_CUDA_COUNT_CALLS=1 prints the number of
 * calls at exit ("fake-cuda: N calls"); fake_cuda_calls() is the count so
 * far. */
static long calls;
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
  return fake_fails_at(&calls, "FAKE_CUDA_FAIL_AT", "fake-cuda", name);
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
CUresult cuCtxSynchronize(void) {
  FAKE_ENTRY(cuCtxSynchronize);
  ++waits;
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
/* Bytes copied in each direction so far (what crossed "PCIe"). */
static unsigned long long h2d_bytes, d2h_bytes;
unsigned long long fake_cuda_h2d_bytes(void) { return h2d_bytes; }
unsigned long long fake_cuda_d2h_bytes(void) { return d2h_bytes; }
CUresult cuMemcpyHtoDAsync_v2(unsigned long long dst, const void *src,
                              size_t bytes, void *stream) {
  FAKE_ENTRY(cuMemcpyHtoDAsync_v2);
  memcpy((void *)(size_t)dst, src, bytes);
  h2d_bytes += bytes;
  return 0;
}
CUresult cuMemcpyDtoHAsync_v2(void *dst, unsigned long long src, size_t bytes,
                              void *stream) {
  FAKE_ENTRY(cuMemcpyDtoHAsync_v2);
  memcpy(dst, (void *)(size_t)src, bytes);
  d2h_bytes += bytes;
  return 0;
}
CUresult cuMemcpyDtoDAsync_v2(unsigned long long dst, unsigned long long src,
                              size_t bytes, void *stream) {
  FAKE_ENTRY(cuMemcpyDtoDAsync_v2);
  memmove((void *)(size_t)dst, (void *)(size_t)src, bytes);
  return 0;
}
CUresult cuMemsetD8Async(unsigned long long dst, unsigned char value,
                         size_t bytes, void *stream) {
  FAKE_ENTRY(cuMemsetD8Async);
  memset((void *)(size_t)dst, value, bytes);
  return 0;
}

static int stream_object;
CUresult cuStreamCreate(void **stream, unsigned flags) {
  FAKE_ENTRY(cuStreamCreate);
  *stream = &stream_object;
  return 0;
}
CUresult cuStreamDestroy_v2(void *stream) { return 0; }
CUresult cuStreamSynchronize(void *stream) {
  FAKE_ENTRY(cuStreamSynchronize);
  ++waits;
  return 0;
}

/* The last launch: grid, block, and how many parameters it had. */
unsigned fake_cuda_last_launch[6];
int fake_cuda_last_param_count;
int fake_cuda_launches;
/* A launch's parameters are checked against the kernel's PTX signature:
 * each `.ptr` parameter must point into device memory allocated here, or be
 * null (an empty buffer has no memory; a real device accepts it for a
 * kernel that reads none of it). A packing error in the caller fails the
 * launch: CUDA_ERROR_INVALID_VALUE.
 * A PTX without parameter lines (the unit tests') takes any parameters. */
CUresult cuLaunchKernel(void *function, unsigned gx, unsigned gy, unsigned gz,
                        unsigned bx, unsigned by, unsigned bz, unsigned shared,
                        void *stream, void **params, void **extra) {
  FAKE_ENTRY(cuLaunchKernel);
  unsigned dims[6] = {gx, gy, gz, bx, by, bz};
  memcpy(fake_cuda_last_launch, dims, sizeof(dims));
  ++fake_cuda_launches;
  const char *signature = strchr((const char *)function, '(');
  const char *end = signature ? strchr(signature, ')') : NULL;
  int count = 0;
  for (const char *line = signature; line && end && line < end;) {
    const char *param = strstr(line, ".param");
    if (!param || param > end)
      break;
    if (!params)
      return 1;
    const char *next = strchr(param, '\n');
    int pointer = strstr(param, ".ptr") && strstr(param, ".ptr") < next;
    if (pointer) {
      unsigned long long value;
      memcpy(&value, params[count], sizeof(value));
      if (value != 0 && !is_device_pointer(value))
        return 1;
    }
    ++count;
    line = next ? next + 1 : end;
  }
  fake_cuda_last_param_count = count;
  return 0;
}

static float event_clock;
CUresult cuEventCreate(void **event, unsigned flags) {
  FAKE_ENTRY(cuEventCreate);
  *event = malloc(sizeof(float));
  return 0;
}
CUresult cuEventDestroy_v2(void *event) {
  free(event);
  return 0;
}
CUresult cuEventRecord(void *event, void *stream) {
  FAKE_ENTRY(cuEventRecord);
  event_clock += 1.5f;
  *(float *)event = event_clock;
  return 0;
}
CUresult cuEventSynchronize(void *event) {
  FAKE_ENTRY(cuEventSynchronize);
  ++waits;
  return 0;
}
CUresult cuEventElapsedTime_v2(float *ms, void *start, void *end) {
  FAKE_ENTRY(cuEventElapsedTime_v2);
  *ms = *(float *)end - *(float *)start;
  return 0;
}
