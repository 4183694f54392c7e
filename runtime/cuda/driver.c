/*===- driver.c - loading the CUDA driver, errors, the device -------------===*
 *
 * kiln_rt_cuda_init dlopens the driver and resolves the entry points of
 * driver.h, initializes it, and retains the device's primary context.
 * Every other entry point starts with kiln_cuda_enter, which fails cleanly
 * before a successful init and makes the context current on new threads.
 *
 *===----------------------------------------------------------------------===*/

#include "driver.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

kiln_cuda_driver kiln_cuda;

static pthread_mutex_t init_mutex = PTHREAD_MUTEX_INITIALIZER;
static void *library;
static atomic_int initialized;
/* Bumped by every init and shutdown: a thread whose context is from an
 * older generation makes the current one current again. */
static atomic_uint generation;
static int init_failed;
static kiln_rt_status_code init_code;
static char init_error[512];
static CUdevice device;
static int device_ordinal;
static CUcontext context;
static CUstream runtime_stream;

CUstream kiln_cuda_stream_handle(kiln_rt_cuda_stream *stream) {
  return stream ? stream->handle : runtime_stream;
}

static _Thread_local unsigned current_generation;

static kiln_rt_status_code code_of(CUresult result) {
  switch (result) {
  case CUDA_SUCCESS:
    return KILN_RT_OK;
  case CUDA_ERROR_OUT_OF_MEMORY:
    return KILN_RT_OUT_OF_MEMORY;
  case CUDA_ERROR_INVALID_VALUE:
  case CUDA_ERROR_INVALID_HANDLE:
  case CUDA_ERROR_NOT_FOUND:
    return KILN_RT_INVALID_ARGUMENT;
  case CUDA_ERROR_NOT_INITIALIZED:
  case CUDA_ERROR_DEINITIALIZED:
  case CUDA_ERROR_INSUFFICIENT_DRIVER:
  case CUDA_ERROR_NO_DEVICE:
    return KILN_RT_UNAVAILABLE;
  default:
    return KILN_RT_DEVICE_ERROR;
  }
}

kiln_rt_status kiln_cuda_check(CUresult result, const char *call) {
  if (result == CUDA_SUCCESS)
    return KILN_RT_SUCCESS;
  const char *name = NULL, *description = NULL;
  if (kiln_cuda.cuGetErrorName)
    kiln_cuda.cuGetErrorName(result, &name);
  if (kiln_cuda.cuGetErrorString)
    kiln_cuda.cuGetErrorString(result, &description);
  if (name)
    return kiln_rt_status_make(code_of(result), "%s: %s (%s)", call, name,
                               description ? description : "no description");
  return kiln_rt_status_make(code_of(result), "%s: CUresult %d", call, result);
}

kiln_rt_status kiln_cuda_enter(const char *api) {
  if (!atomic_load(&initialized)) {
    pthread_mutex_lock(&init_mutex);
    kiln_rt_status status =
        init_failed
            ? kiln_rt_status_make(KILN_RT_UNAVAILABLE,
                                  "%s: the CUDA runtime is not available: %s",
                                  api, init_error)
            : kiln_rt_status_make(
                  KILN_RT_UNAVAILABLE,
                  "%s: the CUDA runtime is not initialized (call "
                  "kiln_rt_cuda_init first)",
                  api);
    pthread_mutex_unlock(&init_mutex);
    return status;
  }
  unsigned now = atomic_load(&generation);
  if (current_generation != now) {
    KILN_CUDA_RETURN_IF_ERROR(cuCtxSetCurrent, (context));
    current_generation = now;
  }
  return KILN_RT_SUCCESS;
}

int kiln_cuda_entered(const char *api) {
  kiln_rt_status status = kiln_cuda_enter(api);
  int entered = !status;
  kiln_rt_status_free(status);
  return entered;
}

/* Undoes a partial init; called with init_mutex held. */
static void unload_library(void) {
  if (library)
    dlclose(library);
  library = NULL;
  memset(&kiln_cuda, 0, sizeof(kiln_cuda));
}

/* The older name of an entry point whose versioned symbol drivers before
 * some release lack, where the two have the same signature; else the name
 * itself. (cuda.h maps cuEventElapsedTime to cuEventElapsedTime_v2 since
 * CUDA 12.8; older drivers export only the first. Other _v2 functions
 * changed their parameters: their old symbols must never be used.) */
static const char *predecessor_of(const char *name) {
  if (strcmp(name, "cuEventElapsedTime_v2") == 0)
    return "cuEventElapsedTime";
  return name;
}

/* The init steps. */
static kiln_rt_status load_and_initialize(void) {
  const char *path = getenv("KILN_RT_LIBCUDA");
  if (!path || !*path)
    path = "libcuda.so.1";
  library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *why = dlerror();
    return kiln_rt_status_make(KILN_RT_UNAVAILABLE,
                               "dlopen %s: %s (is an NVIDIA driver installed?)",
                               path, why ? why : "unknown error");
  }
#define KILN_CUDA_RESOLVE(name, result, params)                                \
  *(void **)(&kiln_cuda.name) = dlsym(library, #name);                         \
  if (!kiln_cuda.name)                                                         \
    *(void **)(&kiln_cuda.name) = dlsym(library, predecessor_of(#name));       \
  if (!kiln_cuda.name)                                                         \
    return kiln_rt_status_make(KILN_RT_UNAVAILABLE,                            \
                               "%s has no %s (is the driver too old?)", path,  \
                               #name);
  KILN_CUDA_DRIVER_FUNCTIONS(KILN_CUDA_RESOLVE)
#undef KILN_CUDA_RESOLVE
  /* Graphs where the driver has them all. */
  kiln_cuda.has_graphs = 1;
#define KILN_CUDA_RESOLVE_OPTIONAL(name, result, params)                       \
  *(void **)(&kiln_cuda.name) = dlsym(library, #name);
  KILN_CUDA_GRAPH_FUNCTIONS(KILN_CUDA_RESOLVE_OPTIONAL)
#undef KILN_CUDA_RESOLVE_OPTIONAL
  if (!kiln_cuda.cuStreamGetCaptureInfo_v3)
    *(void **)(&kiln_cuda.cuStreamGetCaptureInfo_v2) =
        dlsym(library, "cuStreamGetCaptureInfo_v2");
#define KILN_CUDA_CHECK_OPTIONAL(name, result, params)                         \
  if (!kiln_cuda.name && (strcmp(#name, "cuStreamGetCaptureInfo_v3") != 0 ||   \
                          !kiln_cuda.cuStreamGetCaptureInfo_v2))               \
    kiln_cuda.has_graphs = 0;
  KILN_CUDA_GRAPH_FUNCTIONS(KILN_CUDA_CHECK_OPTIONAL)
#undef KILN_CUDA_CHECK_OPTIONAL

  KILN_CUDA_RETURN_IF_ERROR(cuInit, (0));
  int count = 0;
  KILN_CUDA_RETURN_IF_ERROR(cuDeviceGetCount, (&count));
  const char *ordinal = getenv("KILN_RT_CUDA_DEVICE");
  device_ordinal = ordinal && *ordinal ? atoi(ordinal) : 0;
  if (count == 0)
    return kiln_rt_status_make(KILN_RT_UNAVAILABLE,
                               "cuDeviceGetCount: the driver sees no device");
  if (device_ordinal < 0 || device_ordinal >= count)
    return kiln_rt_status_make(
        KILN_RT_INVALID_ARGUMENT,
        "KILN_RT_CUDA_DEVICE=%d, but there are %d devices", device_ordinal,
        count);
  KILN_CUDA_RETURN_IF_ERROR(cuDeviceGet, (&device, device_ordinal));
  KILN_CUDA_RETURN_IF_ERROR(cuDevicePrimaryCtxRetain, (&context, device));
  kiln_rt_status status = KILN_CUDA_CALL(cuCtxSetCurrent, (context));
  if (!status)
    status = KILN_CUDA_CALL(cuStreamCreate,
                            (&runtime_stream, CU_STREAM_NON_BLOCKING));
  if (status) {
    runtime_stream = NULL;
    kiln_cuda.cuDevicePrimaryCtxRelease_v2(device);
    return status;
  }
  return KILN_RT_SUCCESS;
}

kiln_rt_status kiln_rt_cuda_init(void) {
  if (atomic_load(&initialized))
    return kiln_cuda_enter("kiln_rt_cuda_init");
  pthread_mutex_lock(&init_mutex);
  kiln_rt_status status = KILN_RT_SUCCESS;
  if (atomic_load(&initialized)) {
    status = KILN_RT_SUCCESS;
  } else if (init_failed) {
    status = kiln_rt_status_make(init_code, "%s", init_error);
  } else {
    status = load_and_initialize();
    if (!status) {
      current_generation = atomic_fetch_add(&generation, 1) + 1;
      atomic_store(&initialized, 1);
    } else {
      /* Remembered: later calls fail the same way. */
      init_failed = 1;
      init_code = kiln_rt_status_code_of(status);
      snprintf(init_error, sizeof(init_error), "%s",
               kiln_rt_status_message(status));
      unload_library();
    }
  }
  pthread_mutex_unlock(&init_mutex);
  return !status ? kiln_cuda_enter("kiln_rt_cuda_init") : status;
}

int kiln_rt_cuda_is_initialized(void) { return atomic_load(&initialized); }

uint64_t kiln_rt_cuda_session(void) {
  return atomic_load(&initialized) ? atomic_load(&generation) : 0;
}

static _Atomic(void (*)(void)) shutdown_hook;
void kiln_cuda_set_shutdown_hook(void (*hook)(void)) {
  atomic_store(&shutdown_hook, hook);
}

void kiln_rt_cuda_shutdown(void) {
  void (*hook)(void) = atomic_load(&shutdown_hook);
  if (hook)
    hook();
  pthread_mutex_lock(&init_mutex);
  if (atomic_load(&initialized) && kiln_cuda_entered("kiln_rt_cuda_shutdown")) {
    kiln_cuda.cuCtxSynchronize();
    kiln_cuda_release_graphs();
    kiln_cuda_release_blas();
    kiln_cuda_release_capture_streams();
    kiln_cuda_unload_modules();
    kiln_cuda_release_memory();
    kiln_cuda.cuStreamDestroy_v2(runtime_stream);
    kiln_cuda.cuDevicePrimaryCtxRelease_v2(device);
  }
  atomic_store(&initialized, 0);
  atomic_fetch_add(&generation, 1);
  init_failed = 0;
  context = NULL;
  runtime_stream = NULL;
  unload_library();
  pthread_mutex_unlock(&init_mutex);
}

kiln_rt_status kiln_rt_cuda_device_count(int *count) {
  KILN_RT_RETURN_IF_ERROR(kiln_cuda_enter("kiln_rt_cuda_device_count"));
  if (!count)
    return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT,
                               "kiln_rt_cuda_device_count: count is NULL");
  return KILN_CUDA_CALL(cuDeviceGetCount, (count));
}

kiln_rt_status kiln_rt_cuda_device_get_info(kiln_rt_cuda_device_info *info) {
  kiln_rt_status status = kiln_cuda_enter("kiln_rt_cuda_device_get_info");
  if (status)
    return status;
  if (!info)
    return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT,
                               "kiln_rt_cuda_device_get_info: info is NULL");
  memset(info, 0, sizeof(*info));
  info->ordinal = device_ordinal;
  status = KILN_CUDA_CALL(cuDeviceGetName,
                          (info->name, (int)sizeof(info->name) - 1, device));
  struct {
    int attribute;
    int *value;
  } attributes[] = {
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &info->compute_major},
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, &info->compute_minor},
      {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, &info->multiprocessors},
      {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, &info->max_threads_per_block},
      {CU_DEVICE_ATTRIBUTE_WARP_SIZE, &info->warp_size},
  };
  for (size_t i = 0; !status && i < sizeof(attributes) / sizeof(attributes[0]);
       ++i)
    status =
        KILN_CUDA_CALL(cuDeviceGetAttribute,
                       (attributes[i].value, attributes[i].attribute, device));
  size_t bytes = 0;
  if (!status)
    status = KILN_CUDA_CALL(cuDeviceTotalMem_v2, (&bytes, device));
  info->total_memory_bytes = bytes;
  return status;
}

kiln_rt_status kiln_rt_cuda_synchronize(void) {
  KILN_RT_RETURN_IF_ERROR(kiln_cuda_enter("kiln_rt_cuda_synchronize"));
  return KILN_CUDA_CALL(cuCtxSynchronize, ());
}
