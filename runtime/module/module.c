/*===- module.c - loading and running ahead-of-time modules ---------------===*
 *
 * The file (lib/Compiler/Compile/AotModule.cpp writes it), little-endian:
 *
 *   header, 32 bytes:
 *     "KILNMOD\0"  u16 format version  u8 backend  u8 0  u32 0
 *     u64 payload size  u64 payload checksum (kiln_rt_module_checksum)
 *   payload:
 *     string kiln version, string target (arch or chip),
 *     string CPU features ("+avx2,+fma,...": what the kernels use),
 *     string entry name,
 *     u32 count, compile statistics (string name, i64 value),
 *     u32 count, inputs; u32 count, outputs:
 *       (string name, u8 dtype, u32 rank, i64 dims[rank], -1 dynamic)
 *     block host program ("KILNHP"), block kernels (ELF shared object or PTX)
 *
 * Strings are a u32 length and the bytes, blocks a u64 length and the bytes.
 * The checks run in the order that gives the most useful message: what the
 * file is, its format version, its size, its checksum, then whether this
 * runtime and this machine can run it.
 *
 *===----------------------------------------------------------------------===*/

#define _GNU_SOURCE
#include "../common/reader.h"
#include "../common/status.h"
#include "kiln_rt/kiln_rt_module.h"
#include "kiln_rt/kiln_rt_program.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef KILN_VERSION_STRING
#error "KILN_VERSION_STRING is set by runtime/CMakeLists.txt"
#endif

enum { KILN_MODULE_VERSION = 1, KILN_MODULE_HEADER = 32 };
#define KILN_MAX_ARGUMENTS 4096
#define KILN_MAX_RANK 16

struct kiln_rt_module {
  kiln_rt_backend backend;
  char *kiln_version, *target, *features, *entry;
  size_t num_stats;
  char **stat_names;
  int64_t *stat_values;
  size_t num_inputs, num_outputs;
  kiln_rt_tensor_type *types; /* inputs, then outputs */
  int64_t *dims;
  kiln_rt_program *program;
  void *library; /* CPU: the kernels' shared object */
  char *ptx;     /* CUDA: the kernels */
  size_t ptx_size;
};

/* --- Checksum ------------------------------------------------------------ */

static uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

static uint64_t load64(const unsigned char *p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i)
    v |= (uint64_t)p[i] << (8 * i);
  return v;
}

static uint64_t mix(uint64_t lane, uint64_t word) {
  lane ^= word * UINT64_C(0x9E3779B97F4A7C15);
  return rotl(lane, 31) * UINT64_C(0xBF58476D1CE4E5B9);
}

uint64_t kiln_rt_module_checksum(const void *bytes, size_t size) {
  const unsigned char *p = bytes;
  /* Four independent lanes over 32-byte blocks, then the tail. */
  uint64_t lanes[4] = {
      UINT64_C(0x243F6A8885A308D3), UINT64_C(0x13198A2E03707344),
      UINT64_C(0xA4093822299F31D0), UINT64_C(0x082EFA98EC4E6C89)};
  size_t i = 0;
  for (; i + 32 <= size; i += 32)
    for (int l = 0; l < 4; ++l)
      lanes[l] = mix(lanes[l], load64(p + i + 8 * l));
  uint64_t h = (uint64_t)size;
  for (int l = 0; l < 4; ++l)
    h = mix(h, lanes[l]);
  uint64_t tail = 0;
  int shift = 0;
  for (; i < size; ++i) {
    tail |= (uint64_t)p[i] << shift;
    shift += 8;
    if (shift == 64) {
      h = mix(h, tail);
      tail = 0;
      shift = 0;
    }
  }
  h = mix(h, tail);
  /* splitmix64's finalizer */
  h ^= h >> 30;
  h *= UINT64_C(0xBF58476D1CE4E5B9);
  h ^= h >> 27;
  h *= UINT64_C(0x94D049BB133111EB);
  return h ^ (h >> 31);
}

uint16_t kiln_rt_module_format_version(void) { return KILN_MODULE_VERSION; }
const char *kiln_rt_version(void) { return KILN_VERSION_STRING; }

/* --- Types --------------------------------------------------------------- */

size_t kiln_rt_dtype_size(kiln_rt_dtype dtype) {
  switch (dtype) {
  case KILN_RT_F32:
    return 4;
  case KILN_RT_F64:
    return 8;
  case KILN_RT_F16:
  case KILN_RT_BF16:
    return 2;
  case KILN_RT_I1:
    return 1;
  case KILN_RT_I32:
    return 4;
  case KILN_RT_I64:
    return 8;
  }
  return 0;
}

const char *kiln_rt_dtype_name(kiln_rt_dtype dtype) {
  switch (dtype) {
  case KILN_RT_F32:
    return "f32";
  case KILN_RT_F64:
    return "f64";
  case KILN_RT_F16:
    return "f16";
  case KILN_RT_BF16:
    return "bf16";
  case KILN_RT_I1:
    return "i1";
  case KILN_RT_I32:
    return "i32";
  case KILN_RT_I64:
    return "i64";
  }
  return "?";
}

/* "tensor<4x8xf32>" into `out`. */
static const char *type_string(char *out, size_t size, kiln_rt_dtype dtype,
                               uint32_t rank, const int64_t *dims) {
  size_t used = (size_t)snprintf(out, size, "tensor<");
  for (uint32_t d = 0; d < rank && used < size; ++d) {
    if (dims[d] < 0)
      used += (size_t)snprintf(out + used, size - used, "?x");
    else
      used += (size_t)snprintf(out + used, size - used, "%lldx",
                               (long long)dims[d]);
  }
  if (used < size)
    snprintf(out + used, size - used, "%s>", kiln_rt_dtype_name(dtype));
  return out;
}

/* --- The target ---------------------------------------------------------- */

static const char *host_arch(void) {
#if defined(__x86_64__)
  return "x86_64";
#elif defined(__aarch64__)
  return "aarch64";
#else
  return "unknown";
#endif
}

/* Whether `list` (comma-separated) holds `name`. */
static int list_contains(const char *list, const char *name, size_t length) {
  for (const char *p = list; *p;) {
    const char *end = strchr(p, ',');
    size_t n = end ? (size_t)(end - p) : strlen(p);
    if (n == length && strncmp(p, name, length) == 0)
      return 1;
    p += n + (end ? 1 : 0);
  }
  return 0;
}

/* Whether this CPU has the LLVM feature `name` (e.g. "avx2"): 1, 0, or -1
 * for a feature the runtime does not check (it cannot tell). The
 * instruction-set extensions that vectorized kernels use are checked.
 * KILN_RT_CPU_FEATURES (comma-separated) replaces what the CPU reports for
 * those, to test modules built for other CPUs. */
static int host_has_feature(const char *name, size_t length) {
#if defined(__x86_64__)
  const char *fake = getenv("KILN_RT_CPU_FEATURES");
  __builtin_cpu_init();
#define KILN_FEATURE(llvm_name, builtin_name)                                  \
  if (length == sizeof(llvm_name) - 1 &&                                       \
      strncmp(name, llvm_name, length) == 0)                                   \
    return fake ? list_contains(fake, name, length)                            \
           : __builtin_cpu_supports(builtin_name) ? 1                          \
                                                  : 0;
  KILN_FEATURE("sse2", "sse2")
  KILN_FEATURE("sse3", "sse3")
  KILN_FEATURE("ssse3", "ssse3")
  KILN_FEATURE("sse4.1", "sse4.1")
  KILN_FEATURE("sse4.2", "sse4.2")
  KILN_FEATURE("popcnt", "popcnt")
  KILN_FEATURE("avx", "avx")
  KILN_FEATURE("avx2", "avx2")
  KILN_FEATURE("fma", "fma")
  KILN_FEATURE("bmi", "bmi")
  KILN_FEATURE("bmi2", "bmi2")
  KILN_FEATURE("avx512f", "avx512f")
  KILN_FEATURE("avx512bw", "avx512bw")
  KILN_FEATURE("avx512dq", "avx512dq")
  KILN_FEATURE("avx512vl", "avx512vl")
  KILN_FEATURE("avx512cd", "avx512cd")
  KILN_FEATURE("avx512vbmi", "avx512vbmi")
  KILN_FEATURE("avx512ifma", "avx512ifma")
  KILN_FEATURE("avx512vnni", "avx512vnni")
  KILN_FEATURE("avx512bf16", "avx512bf16")
#undef KILN_FEATURE
#else
  (void)name;
  (void)length;
  (void)list_contains;
#endif
  return -1;
}

/* Fails when the kernels use a feature ("+name" in `features`) this CPU
 * lacks. */
static kiln_rt_status check_cpu_features(const char *features) {
  for (const char *p = features; *p;) {
    const char *end = strchr(p, ',');
    size_t n = end ? (size_t)(end - p) : strlen(p);
    if (n > 1 && p[0] == '+' && host_has_feature(p + 1, n - 1) == 0)
      return kiln_rt_status_make(
          KILN_RT_UNAVAILABLE,
          "the module was compiled for a CPU with %.*s, which "
          "this CPU lacks: compile it again on this machine",
          (int)(n - 1), p + 1);
    p += n + (end ? 1 : 0);
  }
  return KILN_RT_SUCCESS;
}

/* --- Loading ------------------------------------------------------------- */

void kiln_rt_module_free(kiln_rt_module *module) {
  if (!module)
    return;
  kiln_rt_program_destroy(module->program);
  if (module->library)
    dlclose(module->library);
  size_t n = module->num_inputs + module->num_outputs;
  for (size_t i = 0; module->types && i < n; ++i)
    free((void *)(uintptr_t)module->types[i].name);
  free(module->types);
  free(module->dims);
  free(module->kiln_version);
  free(module->target);
  free(module->features);
  free(module->entry);
  for (size_t i = 0; module->stat_names && i < module->num_stats; ++i)
    free(module->stat_names[i]);
  free(module->stat_names);
  free(module->stat_values);
  free(module->ptx);
  free(module);
}

static kiln_rt_status corrupt(const char *what) {
  return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT, "corrupt module: %s",
                             what);
}

/* Reads `count` tensor types into module->types from `first` on. */
static int read_types(kiln_reader *r, kiln_rt_module *module, size_t first,
                      size_t count, size_t *dims_used, size_t dims_capacity) {
  for (size_t i = first; i < first + count; ++i) {
    kiln_rt_tensor_type *type = &module->types[i];
    char *name = NULL;
    uint8_t dtype;
    if (!kiln_read_string(r, &name))
      return 0;
    type->name = name;
    if (!kiln_read_u8(r, &dtype) || dtype > KILN_RT_I64 ||
        !kiln_read_u32(r, &type->rank) || type->rank > KILN_MAX_RANK ||
        *dims_used + type->rank > dims_capacity)
      return 0;
    type->dtype = (kiln_rt_dtype)dtype;
    int64_t *dims = module->dims + *dims_used;
    for (uint32_t d = 0; d < type->rank; ++d)
      if (!kiln_read_i64(r, &dims[d]) || dims[d] < KILN_RT_DYNAMIC_DIM)
        return 0;
    type->dims = dims;
    *dims_used += type->rank;
  }
  return 1;
}

/* dlopens the kernels' shared object from memory (a memfd; a temporary file
 * where there is none) and binds the program to them. */
static kiln_rt_status load_cpu_kernels(kiln_rt_module *module,
                                       const unsigned char *object,
                                       size_t size) {
  size_t num_kernels = kiln_rt_program_num_kernels(module->program);
  if (num_kernels == 0)
    return kiln_rt_program_bind_cpu(module->program, NULL, 0);
  if (size == 0)
    return corrupt("the program calls kernels but the module has none");
  char path[64];
  char temporary[4096] = "";
  int fd = memfd_create("kiln-module-kernels", MFD_CLOEXEC);
  if (fd < 0) {
    const char *dir = getenv("TMPDIR");
    snprintf(temporary, sizeof(temporary), "%s/kiln-module-XXXXXX",
             dir && dir[0] ? dir : "/tmp");
    fd = mkstemp(temporary);
    if (fd < 0)
      return kiln_rt_status_make(
          KILN_RT_UNAVAILABLE,
          "cannot write the module's kernels to a file: %s", strerror(errno));
  }
  for (size_t written = 0; written < size;) {
    ssize_t n = write(fd, object + written, size - written);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      kiln_rt_status status = kiln_rt_status_make(
          KILN_RT_UNAVAILABLE, "cannot write the module's kernels: %s",
          strerror(errno));
      close(fd);
      if (temporary[0])
        unlink(temporary);
      return status;
    }
    written += (size_t)n;
  }
  snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
  dlerror();
  module->library =
      dlopen(temporary[0] ? temporary : path, RTLD_NOW | RTLD_LOCAL);
  const char *why = module->library ? NULL : dlerror();
  close(fd);
  if (temporary[0])
    unlink(temporary);
  if (!module->library)
    return kiln_rt_status_make(KILN_RT_UNAVAILABLE,
                               "cannot load the module's kernels: %s",
                               why ? why : "dlopen failed");
  kiln_rt_kernel_entry *entries = calloc(num_kernels, sizeof(*entries));
  if (!entries)
    return kiln_rt_status_make(KILN_RT_OUT_OF_MEMORY, "out of host memory");
  kiln_rt_status status = KILN_RT_SUCCESS;
  for (size_t i = 0; i < num_kernels && !status; ++i) {
    char symbol[512];
    const char *name = kiln_rt_program_kernel_name(module->program, i);
    /* The packed wrapper of each kernel (each argument by address). */
    snprintf(symbol, sizeof(symbol), "_mlir_%s", name);
    void *address = dlsym(module->library, symbol);
    if (!address)
      status = corrupt("a kernel the program calls is missing");
    entries[i] = (kiln_rt_kernel_entry)address;
  }
  if (!status)
    status = kiln_rt_program_bind_cpu(module->program, entries, num_kernels);
  free(entries);
  return status;
}

kiln_rt_status kiln_rt_module_load_bytes(const void *bytes, size_t size,
                                         kiln_rt_module **out) {
  if (!out || (!bytes && size))
    return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT,
                               "kiln_rt_module_load: null argument");
  *out = NULL;
  kiln_reader header = {bytes, size, 0};
  uint16_t version;
  uint8_t backend, zero8;
  uint32_t zero32;
  uint64_t payload_size, checksum;
  if (!kiln_read_magic(&header, "KILNMOD", 8)) {
    if (size > 0 && size < 8 && memcmp(bytes, "KILNMOD", size) == 0)
      return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT,
                                 "truncated module: %zu bytes", size);
    return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT, "not a kiln module");
  }
  if (!kiln_read_u16(&header, &version))
    return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT,
                               "truncated module: %zu bytes", size);
  if (version != KILN_MODULE_VERSION)
    return kiln_rt_status_make(
        KILN_RT_INVALID_ARGUMENT,
        "the module has format version %u; this runtime reads "
        "version %u: compile it again with this kiln",
        (unsigned)version, (unsigned)KILN_MODULE_VERSION);
  if (!kiln_read_u8(&header, &backend) || !kiln_read_u8(&header, &zero8) ||
      !kiln_read_u32(&header, &zero32) ||
      !kiln_read_u64(&header, &payload_size) ||
      !kiln_read_u64(&header, &checksum))
    return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT,
                               "truncated module: %zu bytes", size);
  if (payload_size != size - KILN_MODULE_HEADER)
    return kiln_rt_status_make(
        KILN_RT_INVALID_ARGUMENT,
        "truncated module: %zu bytes, its header says %llu", size,
        (unsigned long long)(payload_size + KILN_MODULE_HEADER));
  const unsigned char *payload =
      (const unsigned char *)bytes + KILN_MODULE_HEADER;
  if (kiln_rt_module_checksum(payload, payload_size) != checksum)
    return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT,
                               "corrupt module: the checksum does not match");
  if (backend > KILN_RT_BACKEND_CUDA || zero8 != 0 || zero32 != 0)
    return corrupt("bad header");

  kiln_rt_module *module = calloc(1, sizeof(kiln_rt_module));
  if (!module)
    return kiln_rt_status_make(KILN_RT_OUT_OF_MEMORY, "out of host memory");
  module->backend = (kiln_rt_backend)backend;
  kiln_reader reader = {payload, (size_t)payload_size, 0}, *r = &reader;
  kiln_rt_status status = KILN_RT_SUCCESS;
  uint32_t num_inputs, num_outputs;
  const unsigned char *program_bytes, *kernels;
  size_t program_size, kernels_size;
  if (!kiln_read_string(r, &module->kiln_version) ||
      !kiln_read_string(r, &module->target) ||
      !kiln_read_string(r, &module->features) ||
      !kiln_read_string(r, &module->entry)) {
    status = corrupt("truncated payload");
    goto done;
  }
  uint32_t num_stats;
  if (!kiln_read_count(r, &num_stats, 64)) {
    status = corrupt("truncated payload");
    goto done;
  }
  module->stat_names = calloc(num_stats + 1, sizeof(char *));
  module->stat_values = calloc(num_stats + 1, sizeof(int64_t));
  if (!module->stat_names || !module->stat_values) {
    status = kiln_rt_status_make(KILN_RT_OUT_OF_MEMORY, "out of host memory");
    goto done;
  }
  module->num_stats = num_stats;
  for (uint32_t i = 0; i < num_stats; ++i)
    if (!kiln_read_string(r, &module->stat_names[i]) ||
        !kiln_read_i64(r, &module->stat_values[i])) {
      status = corrupt("truncated payload");
      goto done;
    }
  if (strcmp(module->kiln_version, KILN_VERSION_STRING) != 0) {
    status = kiln_rt_status_make(
        KILN_RT_INVALID_ARGUMENT,
        "the module was compiled by kiln %s; this runtime is "
        "kiln %s: compile it again with this kiln",
        module->kiln_version, KILN_VERSION_STRING);
    goto done;
  }
  if (module->backend == KILN_RT_BACKEND_CPU) {
    if (strcmp(module->target, host_arch()) != 0) {
      status = kiln_rt_status_make(
          KILN_RT_UNAVAILABLE, "the module was compiled for %s; this CPU is %s",
          module->target, host_arch());
      goto done;
    }
    if ((status = check_cpu_features(module->features)))
      goto done;
  }
  /* The signature: dims come from a pool no larger than the payload. */
  size_t dims_used = 0, dims_capacity = kiln_reader_remaining(r) / 8 + 1;
  if (!kiln_read_count(r, &num_inputs, KILN_MAX_ARGUMENTS)) {
    status = corrupt("bad signature");
    goto done;
  }
  module->dims = malloc(dims_capacity * sizeof(int64_t));
  module->types = calloc((size_t)num_inputs + 1, sizeof(kiln_rt_tensor_type));
  if (!module->dims || !module->types) {
    status = kiln_rt_status_make(KILN_RT_OUT_OF_MEMORY, "out of host memory");
    goto done;
  }
  module->num_inputs = num_inputs;
  if (!read_types(r, module, 0, num_inputs, &dims_used, dims_capacity) ||
      !kiln_read_count(r, &num_outputs, KILN_MAX_ARGUMENTS)) {
    status = corrupt("bad signature");
    goto done;
  }
  kiln_rt_tensor_type *types =
      realloc(module->types, ((size_t)num_inputs + num_outputs + 1) *
                                 sizeof(kiln_rt_tensor_type));
  if (!types) {
    status = kiln_rt_status_make(KILN_RT_OUT_OF_MEMORY, "out of host memory");
    goto done;
  }
  module->types = types;
  memset(types + num_inputs, 0,
         ((size_t)num_outputs + 1) * sizeof(kiln_rt_tensor_type));
  module->num_outputs = num_outputs;
  if (!read_types(r, module, num_inputs, num_outputs, &dims_used,
                  dims_capacity) ||
      !kiln_read_block(r, &program_bytes, &program_size) ||
      !kiln_read_block(r, &kernels, &kernels_size) ||
      kiln_reader_remaining(r) != 0) {
    status = corrupt("bad signature or sections");
    goto done;
  }
  if ((status = kiln_rt_program_create(program_bytes, program_size,
                                       &module->program)))
    goto done;
  int agrees =
      (size_t)kiln_rt_program_num_arguments(module->program) ==
          (size_t)num_inputs + num_outputs &&
      (size_t)kiln_rt_program_num_inputs(module->program) == (size_t)num_inputs;
  for (size_t i = 0; agrees && i < (size_t)num_inputs + num_outputs; ++i)
    agrees = kiln_rt_program_argument_rank(module->program, (int32_t)i) ==
             module->types[i].rank;
  if (!agrees) {
    status = corrupt("the program does not take the entry's arguments");
    goto done;
  }
  if (module->backend == KILN_RT_BACKEND_CPU) {
    status = load_cpu_kernels(module, kernels, kernels_size);
  } else {
    /* The PTX, NUL-terminated, loaded on a device at the first run. */
    module->ptx = malloc(kernels_size + 1);
    if (!module->ptx) {
      status = kiln_rt_status_make(KILN_RT_OUT_OF_MEMORY, "out of host memory");
      goto done;
    }
    memcpy(module->ptx, kernels, kernels_size);
    module->ptx[kernels_size] = '\0';
    module->ptx_size = kernels_size;
    status = kiln_rt_program_check_cuda(module->program);
  }
done:
  if (status) {
    kiln_rt_module_free(module);
    return status;
  }
  *out = module;
  return KILN_RT_SUCCESS;
}

kiln_rt_status kiln_rt_module_load(const char *path, kiln_rt_module **out) {
  if (!path || !out)
    return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT,
                               "kiln_rt_module_load: null argument");
  *out = NULL;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT, "cannot open '%s': %s",
                               path, strerror(errno));
  struct stat info;
  if (fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    close(fd);
    return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT, "'%s' is not a file",
                               path);
  }
  size_t size = (size_t)info.st_size;
  void *bytes = size ? mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
  close(fd);
  if (size && bytes == MAP_FAILED)
    return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT, "cannot read '%s': %s",
                               path, strerror(errno));
  kiln_rt_status status = kiln_rt_module_load_bytes(bytes, size, out);
  if (size)
    munmap(bytes, size);
  /* Names the file in the message. */
  return kiln_rt_status_annotate(status, "%s", path);
}

/* --- Queries and runs ---------------------------------------------------- */

const char *kiln_rt_module_entry(const kiln_rt_module *module) {
  return module->entry;
}
kiln_rt_backend kiln_rt_module_backend(const kiln_rt_module *module) {
  return module->backend;
}
const char *kiln_rt_module_target(const kiln_rt_module *module) {
  return module->target;
}
const char *kiln_rt_module_kiln_version(const kiln_rt_module *module) {
  return module->kiln_version;
}
size_t kiln_rt_module_num_inputs(const kiln_rt_module *module) {
  return module->num_inputs;
}
size_t kiln_rt_module_num_outputs(const kiln_rt_module *module) {
  return module->num_outputs;
}
const kiln_rt_tensor_type *kiln_rt_module_input(const kiln_rt_module *module,
                                                size_t index) {
  return index < module->num_inputs ? &module->types[index] : NULL;
}
const kiln_rt_tensor_type *kiln_rt_module_output(const kiln_rt_module *module,
                                                 size_t index) {
  return index < module->num_outputs
             ? &module->types[module->num_inputs + index]
             : NULL;
}

int kiln_rt_module_stat(const kiln_rt_module *module, const char *name,
                        int64_t *value) {
  for (size_t i = 0; i < module->num_stats; ++i)
    if (strcmp(module->stat_names[i], name) == 0) {
      *value = module->stat_values[i];
      return 1;
    }
  return 0;
}

kiln_rt_program *kiln_rt_module_program(const kiln_rt_module *module) {
  return module->program;
}
const char *kiln_rt_module_ptx(const kiln_rt_module *module, size_t *size) {
  if (size)
    *size = module->ptx_size;
  return module->ptx;
}

/* Fails unless `tensor` has the dtype and shape of `type`. */
static kiln_rt_status check_tensor(const kiln_rt_module *module,
                                   const kiln_rt_tensor_type *type,
                                   const kiln_rt_tensor *tensor) {
  int matches = tensor->dtype == type->dtype && tensor->rank == type->rank &&
                (tensor->rank == 0 || tensor->dims);
  for (uint32_t d = 0; matches && d < type->rank; ++d)
    matches = tensor->dims[d] >= 0 && (type->dims[d] == KILN_RT_DYNAMIC_DIM ||
                                       tensor->dims[d] == type->dims[d]);
  if (matches && !tensor->data && kiln_rt_dtype_size(type->dtype)) {
    int64_t elements = 1;
    for (uint32_t d = 0; d < type->rank; ++d)
      elements *= tensor->dims[d];
    matches = elements == 0;
  }
  if (matches)
    return KILN_RT_SUCCESS;
  char expected[256], given[256];
  if (tensor->rank > KILN_MAX_RANK || (tensor->rank && !tensor->dims) ||
      kiln_rt_dtype_size(tensor->dtype) == 0)
    snprintf(given, sizeof(given), "a malformed tensor");
  else if (!tensor->data)
    snprintf(given, sizeof(given), "a null buffer");
  else
    type_string(given, sizeof(given), tensor->dtype, tensor->rank,
                tensor->dims);
  return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT,
                             "@%s: %s must be %s, got %s", module->entry,
                             type->name,
                             type_string(expected, sizeof(expected),
                                         type->dtype, type->rank, type->dims),
                             given);
}

/* The inputs' dims, flattened, and the results' dims that the program
 * computes from them, which the outputs must have. */
static kiln_rt_status compute_result_dims(const kiln_rt_module *module,
                                          const kiln_rt_tensor *inputs,
                                          const kiln_rt_tensor *outputs,
                                          int64_t **input_dims,
                                          int64_t **result_dims) {
  size_t num_in = 0, num_out = 0;
  for (size_t i = 0; i < module->num_inputs; ++i)
    num_in += inputs[i].rank;
  for (size_t i = 0; i < module->num_outputs; ++i)
    num_out += outputs[i].rank;
  *input_dims = malloc((num_in + 1) * sizeof(int64_t));
  *result_dims = malloc((num_out + 1) * sizeof(int64_t));
  if (!*input_dims || !*result_dims)
    return kiln_rt_status_make(KILN_RT_OUT_OF_MEMORY, "out of host memory");
  size_t k = 0;
  for (size_t i = 0; i < module->num_inputs; ++i)
    for (uint32_t d = 0; d < inputs[i].rank; ++d)
      (*input_dims)[k++] = inputs[i].dims[d];
  KILN_RT_RETURN_IF_ERROR(
      kiln_rt_program_result_dims(module->program, *input_dims, *result_dims));
  k = 0;
  for (size_t i = 0; i < module->num_outputs; ++i) {
    const kiln_rt_tensor *output = &outputs[i];
    const int64_t *dims = *result_dims + k;
    k += output->rank;
    if (memcmp(dims, output->dims, output->rank * sizeof(int64_t)) == 0)
      continue;
    const kiln_rt_tensor_type *type = &module->types[module->num_inputs + i];
    char expected[256], given[256];
    return kiln_rt_status_make(
        KILN_RT_INVALID_ARGUMENT, "@%s: %s must be %s for these inputs, got %s",
        module->entry, type->name,
        type_string(expected, sizeof(expected), type->dtype, type->rank, dims),
        type_string(given, sizeof(given), output->dtype, output->rank,
                    output->dims));
  }
  return KILN_RT_SUCCESS;
}

kiln_rt_status kiln_rt_module_output_dims(const kiln_rt_module *module,
                                          const kiln_rt_tensor *inputs,
                                          size_t num_inputs, int64_t *dims) {
  if (!module || (num_inputs && !inputs) || !dims)
    return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT,
                               "kiln_rt_module_output_dims: null argument");
  if (num_inputs != module->num_inputs)
    return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT,
                               "@%s takes %zu inputs; %zu given", module->entry,
                               module->num_inputs, num_inputs);
  kiln_rt_status status = KILN_RT_SUCCESS;
  for (size_t i = 0; i < num_inputs && !status; ++i) {
    /* Only the dims matter here: any non-null data passes the check. */
    static char placeholder;
    kiln_rt_tensor shape = inputs[i];
    shape.data = &placeholder;
    status = check_tensor(module, &module->types[i], &shape);
  }
  if (status)
    return status;
  if (!kiln_rt_program_is_dynamic(module->program)) {
    size_t k = 0;
    for (size_t i = 0; i < module->num_outputs; ++i) {
      const kiln_rt_tensor_type *type = &module->types[num_inputs + i];
      for (uint32_t d = 0; d < type->rank; ++d)
        dims[k++] = type->dims[d];
    }
    return KILN_RT_SUCCESS;
  }
  size_t count = 0;
  for (size_t i = 0; i < num_inputs; ++i)
    count += inputs[i].rank;
  int64_t *input_dims = malloc((count + 1) * sizeof(int64_t));
  if (!input_dims)
    return kiln_rt_status_make(KILN_RT_OUT_OF_MEMORY, "out of host memory");
  size_t k = 0;
  for (size_t i = 0; i < num_inputs; ++i)
    for (uint32_t d = 0; d < inputs[i].rank; ++d)
      input_dims[k++] = inputs[i].dims[d];
  status = kiln_rt_program_result_dims(module->program, input_dims, dims);
  free(input_dims);
  return status;
}

kiln_rt_status
kiln_rt_module_run(const kiln_rt_module *module, const kiln_rt_tensor *inputs,
                   size_t num_inputs, const kiln_rt_tensor *outputs,
                   size_t num_outputs, kiln_rt_cuda_stream *stream) {
  if (!module || (num_inputs && !inputs) || (num_outputs && !outputs))
    return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT,
                               "kiln_rt_module_run: null argument");
  if (num_inputs != module->num_inputs || num_outputs != module->num_outputs)
    return kiln_rt_status_make(
        KILN_RT_INVALID_ARGUMENT,
        "@%s takes %zu inputs and %zu outputs; %zu and %zu "
        "given",
        module->entry, module->num_inputs, module->num_outputs, num_inputs,
        num_outputs);
  void *small[16];
  size_t count = num_inputs + num_outputs;
  void **buffers = count <= 16 ? small : malloc(count * sizeof(void *));
  if (!buffers)
    return kiln_rt_status_make(KILN_RT_OUT_OF_MEMORY, "out of host memory");
  kiln_rt_status status = KILN_RT_SUCCESS;
  for (size_t i = 0; i < count && !status; ++i) {
    const kiln_rt_tensor *tensor =
        i < num_inputs ? &inputs[i] : &outputs[i - num_inputs];
    status = check_tensor(module, &module->types[i], tensor);
    buffers[i] = tensor->data;
  }
  /* A program with dynamic dims computes the results' dims: the outputs
   * must have them. */
  int64_t *input_dims = NULL, *result_dims = NULL;
  if (!status && kiln_rt_program_is_dynamic(module->program))
    status =
        compute_result_dims(module, inputs, outputs, &input_dims, &result_dims);
  if (!status) {
    if (module->backend == KILN_RT_BACKEND_CPU) {
      status = kiln_rt_program_run_cpu(module->program, buffers, count,
                                       input_dims, NULL);
    } else {
      status = kiln_rt_cuda_init();
      if (!status)
        status = kiln_rt_program_load_cuda(module->program, module->ptx,
                                           module->ptx_size);
      if (!status)
        status = kiln_rt_program_run_cuda(module->program, buffers, count,
                                          input_dims, stream, NULL);
    }
  }
  free(input_dims);
  free(result_dims);
  if (buffers != small)
    free(buffers);
  return status;
}
