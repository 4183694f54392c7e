/*===- kiln_rt_module.h - ahead-of-time modules ---------------------------===*
 *
 * A module (`kiln-compile FILE.mlir -o M.kiln`) is one compiled entry in one
 * versioned file: its signature, its host program (kiln_rt_program.h) and
 * its kernels, a shared object for the CPU (loaded with dlopen: no JIT) or
 * PTX for a GPU. This API loads one, checking its format version, kiln
 * version, target and checksum, says what it takes and returns, and runs it
 * on the caller's buffers. A program that runs modules links the runtime
 * alone: no MLIR, no LLVM.
 *
 * Errors: every call that can fail returns a status (kiln_rt.h) whose
 * message says why.
 *
 *===----------------------------------------------------------------------===*/

#ifndef KILN_RT_KILN_RT_MODULE_H
#define KILN_RT_KILN_RT_MODULE_H

#include "kiln_rt/kiln_rt.h"
#include "kiln_rt/kiln_rt_cuda.h"
#include "kiln_rt/kiln_rt_program.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Element types, in kiln's order. i1 is stored one byte per element; i32
 * and i64 are signed (two's complement), little-endian. */
typedef enum kiln_rt_dtype {
  KILN_RT_F32 = 0,
  KILN_RT_F64 = 1,
  KILN_RT_F16 = 2,
  KILN_RT_BF16 = 3,
  KILN_RT_I1 = 4,
  KILN_RT_I32 = 5,
  KILN_RT_I64 = 6,
} kiln_rt_dtype;

/* Bytes per element; 0 for a value that is not a kiln_rt_dtype. */
size_t kiln_rt_dtype_size(kiln_rt_dtype dtype);
/* "f32", "f64", "f16", "bf16", "i1", "i32", "i64"; "?" for other values. */
const char *kiln_rt_dtype_name(kiln_rt_dtype dtype);

typedef enum kiln_rt_backend {
  KILN_RT_BACKEND_CPU = 0,
  KILN_RT_BACKEND_CUDA = 1,
} kiln_rt_backend;

/* A dim a module takes at run time: its size is the caller's buffer's. */
#define KILN_RT_DYNAMIC_DIM (-1)

/* An argument or result of a module's entry. */
typedef struct kiln_rt_tensor_type {
  const char *name; /* "input0", ..., "output0", ... */
  kiln_rt_dtype dtype;
  uint32_t rank;
  const int64_t *dims; /* KILN_RT_DYNAMIC_DIM where dynamic */
} kiln_rt_tensor_type;

/* A caller's buffer: row-major, dense. On the CPU host memory, on a GPU
 * device memory (kiln_rt_cuda_malloc). */
typedef struct kiln_rt_tensor {
  void *data;
  kiln_rt_dtype dtype;
  uint32_t rank;
  const int64_t *dims;
} kiln_rt_tensor;

typedef struct kiln_rt_module kiln_rt_module;

/* Reads and checks the module file at `path`, and loads its kernels. */
kiln_rt_status kiln_rt_module_load(const char *path, kiln_rt_module **out);
/* The same for a module's bytes (copied; the caller keeps them). */
kiln_rt_status kiln_rt_module_load_bytes(const void *bytes, size_t size,
                                         kiln_rt_module **out);
/* Unloads `module`; NULL is ignored. */
void kiln_rt_module_free(kiln_rt_module *module);

const char *kiln_rt_module_entry(const kiln_rt_module *module);
kiln_rt_backend kiln_rt_module_backend(const kiln_rt_module *module);
/* "x86_64" (a CPU module) or the chip, e.g. "sm_90" (a CUDA module). */
const char *kiln_rt_module_target(const kiln_rt_module *module);
/* The kiln version that wrote it (the runtime's own: others are refused). */
const char *kiln_rt_module_kiln_version(const kiln_rt_module *module);
size_t kiln_rt_module_num_inputs(const kiln_rt_module *module);
size_t kiln_rt_module_num_outputs(const kiln_rt_module *module);
/* NULL past the end. */
const kiln_rt_tensor_type *kiln_rt_module_input(const kiln_rt_module *module,
                                                size_t index);
const kiln_rt_tensor_type *kiln_rt_module_output(const kiln_rt_module *module,
                                                 size_t index);

/* The outputs' dims for `inputs` (only their dtypes and dims are read),
 * flattened into `dims` (the sum of the outputs' ranks): the signature's,
 * with each dynamic dim as the entry computes it from the inputs'. Sizes
 * that must agree between dynamic dims are checked, and an error names the
 * op. */
kiln_rt_status kiln_rt_module_output_dims(const kiln_rt_module *module,
                                          const kiln_rt_tensor *inputs,
                                          size_t num_inputs, int64_t *dims);

/* Runs the entry: `inputs` are read, `outputs` written in full. Their
 * dtypes and shapes must be the signature's, the outputs' dynamic dims
 * those of kiln_rt_module_output_dims (an error names the first that is
 * not). A CUDA module initializes the CUDA runtime if needed, loads its
 * kernels once per session, and queues the steps on `stream` (NULL: the
 * default stream) without waiting; a CPU module ignores `stream`. Safe to
 * call from several threads at once. */
kiln_rt_status
kiln_rt_module_run(const kiln_rt_module *module, const kiln_rt_tensor *inputs,
                   size_t num_inputs, const kiln_rt_tensor *outputs,
                   size_t num_outputs, kiln_rt_cuda_stream *stream);

/* What the compiler recorded about the entry (e.g. "fusion_groups",
 * "unique_kernels", "kernel_launches"): 1 and the value, or 0. */
int kiln_rt_module_stat(const kiln_rt_module *module, const char *name,
                        int64_t *value);

/* The module's host program, bound to its kernels (CPU) or checked for
 * the CUDA executor: for callers that run it with a profile
 * (kiln_rt_program.h) after checking the buffers themselves. */
kiln_rt_program *kiln_rt_module_program(const kiln_rt_module *module);
/* A CUDA module's PTX (NUL-terminated) and its size; NULL for a CPU one. */
const char *kiln_rt_module_ptx(const kiln_rt_module *module, size_t *size);

/* --- For writers of modules (kiln-compile) ------------------------------- */

/* The module file's checksum of `size` bytes (a 64-bit hash). */
uint64_t kiln_rt_module_checksum(const void *bytes, size_t size);
/* The module format version this runtime reads and writers write. */
uint16_t kiln_rt_module_format_version(void);
/* The kiln version of this runtime. */
const char *kiln_rt_version(void);

#ifdef __cplusplus
}
#endif

#endif /* KILN_RT_KILN_RT_MODULE_H */
