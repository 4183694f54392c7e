/*===- modules.c - PTX modules by content, functions by name --------------===*
 *
 * A module is loaded into the driver once per PTX content (FNV-1a hash,
 * then a full compare) and kept until shutdown; each module keeps the
 * functions looked up in it. Loading reports the driver's JIT log.
 *
 *===----------------------------------------------------------------------===*/

#include "driver.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct kiln_rt_cuda_module {
  uint64_t hash;
  char *ptx;
  size_t size;
  CUmodule handle;
  kiln_rt_cuda_function *functions;
  struct kiln_rt_cuda_module *next;
};

static pthread_mutex_t modules_mutex = PTHREAD_MUTEX_INITIALIZER;
static kiln_rt_cuda_module *modules;
static kiln_rt_cuda_module_stats stats;

static uint64_t fnv1a(const char *data, size_t size) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (size_t i = 0; i < size; ++i) {
    h ^= (unsigned char)data[i];
    h *= 0x100000001b3ULL;
  }
  return h;
}

/* Loads `ptx` into the driver; called with modules_mutex held. */
static kiln_rt_status load(const char *ptx, size_t size, uint64_t hash,
                           kiln_rt_cuda_module **out) {
  char error_log[8192] = {0};
  int options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {error_log, (void *)(uintptr_t)(sizeof(error_log) - 1)};
  CUmodule handle = NULL;
  kiln_rt_status status =
      KILN_CUDA_CALL(cuModuleLoadDataEx, (&handle, ptx, 2, options, values));
  if (status && error_log[0]) /* the JIT's own words */
    status = kiln_status_append(status, ": %s", error_log);
  if (status)
    return status;
  kiln_rt_cuda_module *module = calloc(1, sizeof(*module));
  char *copy = malloc(size + 1);
  if (!module || !copy) {
    free(module);
    free(copy);
    kiln_cuda.cuModuleUnload(handle);
    return kiln_rt_status_make(KILN_RT_OUT_OF_MEMORY,
                               "kiln_rt_cuda_module_load: out of host memory");
  }
  memcpy(copy, ptx, size + 1);
  module->hash = hash;
  module->ptx = copy;
  module->size = size;
  module->handle = handle;
  module->next = modules;
  modules = module;
  ++stats.loads;
  *out = module;
  return KILN_RT_SUCCESS;
}

kiln_rt_status kiln_rt_cuda_module_load(const char *ptx, size_t size,
                                        kiln_rt_cuda_module **module) {
  kiln_rt_status status = kiln_cuda_enter("kiln_rt_cuda_module_load");
  if (status)
    return status;
  if (!ptx || !module || size == 0 || ptx[size] != '\0')
    return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT,
                               "kiln_rt_cuda_module_load: needs a non-empty, "
                               "NUL-terminated PTX text and a result pointer");
  uint64_t hash = fnv1a(ptx, size);
  pthread_mutex_lock(&modules_mutex);
  for (kiln_rt_cuda_module *m = modules; m; m = m->next)
    if (m->hash == hash && m->size == size && memcmp(m->ptx, ptx, size) == 0) {
      ++stats.load_hits;
      *module = m;
      pthread_mutex_unlock(&modules_mutex);
      return KILN_RT_SUCCESS;
    }
  status = load(ptx, size, hash, module);
  pthread_mutex_unlock(&modules_mutex);
  return status;
}

kiln_rt_status kiln_rt_cuda_module_get_function(kiln_rt_cuda_module *module,
                                                const char *name,
                                                kiln_rt_cuda_function **out) {
  kiln_rt_status status = kiln_cuda_enter("kiln_rt_cuda_module_get_function");
  if (status)
    return status;
  if (!module || !name || !out)
    return kiln_rt_status_make(
        KILN_RT_INVALID_ARGUMENT,
        "kiln_rt_cuda_module_get_function: needs a module, "
        "a name and a result pointer");
  pthread_mutex_lock(&modules_mutex);
  for (kiln_rt_cuda_function *f = module->functions; f; f = f->next)
    if (strcmp(f->name, name) == 0) {
      ++stats.function_hits;
      *out = f;
      pthread_mutex_unlock(&modules_mutex);
      return KILN_RT_SUCCESS;
    }
  CUfunction handle = NULL;
  status = KILN_CUDA_CALL(cuModuleGetFunction, (&handle, module->handle, name));
  if (status) {
    pthread_mutex_unlock(&modules_mutex);
    return kiln_status_append(status, ": no kernel \"%s\" in the module", name);
  }
  kiln_rt_cuda_function *function = calloc(1, sizeof(*function));
  size_t length = strlen(name);
  char *copy = malloc(length + 1);
  if (!function || !copy) {
    free(function);
    free(copy);
    pthread_mutex_unlock(&modules_mutex);
    return kiln_rt_status_make(KILN_RT_OUT_OF_MEMORY,
                               "kiln_rt_cuda_module_get_function: out of host "
                               "memory");
  }
  memcpy(copy, name, length + 1);
  function->name = copy;
  function->handle = handle;
  function->next = module->functions;
  module->functions = function;
  ++stats.functions;
  *out = function;
  pthread_mutex_unlock(&modules_mutex);
  return KILN_RT_SUCCESS;
}

void kiln_rt_cuda_get_module_stats(kiln_rt_cuda_module_stats *out) {
  pthread_mutex_lock(&modules_mutex);
  *out = stats;
  pthread_mutex_unlock(&modules_mutex);
}

void kiln_cuda_unload_modules(void) {
  pthread_mutex_lock(&modules_mutex);
  while (modules) {
    kiln_rt_cuda_module *m = modules;
    modules = m->next;
    while (m->functions) {
      kiln_rt_cuda_function *f = m->functions;
      m->functions = f->next;
      free(f->name);
      free(f);
    }
    kiln_cuda.cuModuleUnload(m->handle);
    free(m->ptx);
    free(m);
  }
  memset(&stats, 0, sizeof(stats));
  pthread_mutex_unlock(&modules_mutex);
}
