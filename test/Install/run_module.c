/* A host program that runs kiln's ahead-of-time modules with the runtime
 * alone (kiln::runtime: no MLIR, no LLVM), as a user's program would.
 *
 *   run_module MODULE DIR [--size N] [--repeat N]
 *     loads MODULE, writes deterministic inputs to DIR/in<i>.npy (each
 *     dynamic dim of size N, default 3), runs the entry on outputs of the
 *     dims the module computes, and writes DIR/out<i>.npy; checks that bad
 *     buffers are refused with a clear status and that no MLIR or LLVM
 *     library is in the process. With --repeat, prints {"run_ms": median of
 *     N runs}.
 *   run_module --compare A.npy B.npy
 *     exits 0 when the two float arrays agree to 1e-5 (relative and
 *     absolute), else prints the first difference. */
#include "kiln_rt/kiln_rt_module.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void fail(const char *what, const char *why) {
  fprintf(stderr, "run_module: %s: %s\n", what, why);
  exit(1);
}

/* Fails with `status`'s message, if it is a failure. */
static void check(const char *what, kiln_rt_status status) {
  if (status)
    fail(what, kiln_rt_status_message(status));
}

/* Fails unless `status` is a failure of `code` whose message has `text`. */
static void expect_refused(const char *what, kiln_rt_status status,
                           kiln_rt_status_code code, const char *text) {
  if (kiln_rt_status_code_of(status) != code ||
      !strstr(kiln_rt_status_message(status), text))
    fail(what, status ? kiln_rt_status_message(status) : "it succeeded");
  kiln_rt_status_free(status);
}

/* --- .npy, little-endian f32 and f64, C order ---------------------------- */

static void write_npy(const char *path, const kiln_rt_tensor_type *type,
                      const void *data) {
  char header[256];
  int n = snprintf(header, sizeof(header),
                   "{'descr': '<%s', 'fortran_order': False, 'shape': (",
                   type->dtype == KILN_RT_F64 ? "f8" : "f4");
  for (uint32_t d = 0; d < type->rank; ++d)
    n += snprintf(header + n, sizeof(header) - (size_t)n, "%lld,%s",
                  (long long)type->dims[d], d + 1 < type->rank ? " " : "");
  n += snprintf(header + n, sizeof(header) - (size_t)n, "), }");
  /* Magic (6) + version (2) + length (2) + header, padded to 64. */
  int total = (10 + n + 1 + 63) / 64 * 64;
  memset(header + n, ' ', (size_t)(total - 10 - n));
  header[total - 10 - 1] = '\n';
  FILE *f = fopen(path, "wb");
  if (!f)
    fail(path, "cannot write");
  unsigned char prefix[10] = {0x93,
                              'N',
                              'U',
                              'M',
                              'P',
                              'Y',
                              1,
                              0,
                              (unsigned char)((total - 10) & 0xff),
                              (unsigned char)((total - 10) >> 8)};
  size_t elements = 1;
  for (uint32_t d = 0; d < type->rank; ++d)
    elements *= (size_t)type->dims[d];
  fwrite(prefix, 1, 10, f);
  fwrite(header, 1, (size_t)(total - 10), f);
  fwrite(data, kiln_rt_dtype_size(type->dtype), elements, f);
  fclose(f);
}

/* The values of a .npy of f32 or f64 as doubles; sets *count. */
static double *read_npy(const char *path, size_t *count) {
  FILE *f = fopen(path, "rb");
  if (!f)
    fail(path, "cannot read");
  unsigned char prefix[10];
  if (fread(prefix, 1, 10, f) != 10 || memcmp(prefix + 1, "NUMPY", 5) != 0)
    fail(path, "not a .npy file");
  size_t length = prefix[8] | (size_t)prefix[9] << 8;
  char *header = calloc(length + 1, 1);
  if (fread(header, 1, length, f) != length)
    fail(path, "truncated header");
  int f64 = strstr(header, "'<f8'") != NULL;
  if (!f64 && !strstr(header, "'<f4'"))
    fail(path, "not f32 or f64");
  size_t elements = 1;
  const char *shape = strstr(header, "'shape': (");
  if (!shape)
    fail(path, "no shape");
  for (const char *p = shape + 10; *p && *p != ')';) {
    char *end;
    long long dim = strtoll(p, &end, 10);
    if (end == p) {
      ++p;
      continue;
    }
    elements *= (size_t)dim;
    p = end;
  }
  free(header);
  double *values = malloc((elements ? elements : 1) * sizeof(double));
  for (size_t i = 0; i < elements; ++i) {
    if (f64) {
      if (fread(&values[i], 8, 1, f) != 1)
        fail(path, "truncated data");
    } else {
      float v;
      if (fread(&v, 4, 1, f) != 1)
        fail(path, "truncated data");
      values[i] = v;
    }
  }
  fclose(f);
  *count = elements;
  return values;
}

static int compare(const char *a_path, const char *b_path) {
  size_t n, m;
  double *a = read_npy(a_path, &n), *b = read_npy(b_path, &m);
  if (n != m) {
    fprintf(stderr, "run_module: %s has %zu elements, %s %zu\n", a_path, n,
            b_path, m);
    return 1;
  }
  for (size_t i = 0; i < n; ++i)
    if (!(fabs(a[i] - b[i]) <= 1e-5 + 1e-5 * fabs(b[i]))) {
      fprintf(stderr, "run_module: %s and %s differ at %zu: %.9g, %.9g\n",
              a_path, b_path, i, a[i], b[i]);
      return 1;
    }
  free(a);
  free(b);
  return 0;
}

/* --- Running a module ---------------------------------------------------- */

static size_t num_elements(uint32_t rank, const int64_t *dims) {
  size_t n = 1;
  for (uint32_t d = 0; d < rank; ++d)
    n *= (size_t)dims[d];
  return n;
}

/* `tensor`'s type, for write_npy. */
static kiln_rt_tensor_type type_of(const kiln_rt_tensor *tensor) {
  return (kiln_rt_tensor_type){"", tensor->dtype, tensor->rank, tensor->dims};
}

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Fails if a library of MLIR or LLVM is mapped into this process. */
static void check_no_compiler_loaded(void) {
  FILE *maps = fopen("/proc/self/maps", "r");
  if (!maps)
    return;
  char line[4096];
  while (fgets(line, sizeof(line), maps))
    if (strstr(line, "libMLIR") || strstr(line, "libLLVM") ||
        strstr(line, "libmlir"))
      fail("a compiler library is loaded", line);
  fclose(maps);
}

int main(int argc, char **argv) {
  if (argc == 4 && strcmp(argv[1], "--compare") == 0)
    return compare(argv[2], argv[3]);
  const char *dir = argc >= 3 ? argv[2] : NULL;
  int repeat = 0, usage = argc < 3;
  int64_t size = 3;
  for (int i = 3; i < argc && !usage; i += 2) {
    if (i + 1 >= argc)
      usage = 1;
    else if (strcmp(argv[i], "--repeat") == 0)
      repeat = atoi(argv[i + 1]);
    else if (strcmp(argv[i], "--size") == 0)
      size = atoll(argv[i + 1]);
    else
      usage = 1;
  }
  if (usage) {
    fprintf(stderr, "usage: run_module MODULE DIR [--size N] [--repeat N] | "
                    "run_module --compare A.npy B.npy\n");
    return 2;
  }
  kiln_rt_module *module = NULL;
  check("load", kiln_rt_module_load(argv[1], &module));
  if (kiln_rt_module_backend(module) != KILN_RT_BACKEND_CPU)
    fail(argv[1], "this test runs CPU modules");

  size_t num_inputs = kiln_rt_module_num_inputs(module);
  size_t num_outputs = kiln_rt_module_num_outputs(module);
  kiln_rt_tensor *inputs = calloc(num_inputs + 1, sizeof(kiln_rt_tensor));
  kiln_rt_tensor *outputs = calloc(num_outputs + 1, sizeof(kiln_rt_tensor));
  uint64_t state = 0x2545F4914F6CDD1DULL;
  char path[4096];
  int dynamic = 0;
  for (size_t i = 0; i < num_inputs; ++i) {
    const kiln_rt_tensor_type *type = kiln_rt_module_input(module, i);
    int64_t *dims = calloc(type->rank + 1, sizeof(int64_t));
    for (uint32_t d = 0; d < type->rank; ++d) {
      dynamic |= type->dims[d] == KILN_RT_DYNAMIC_DIM;
      dims[d] = type->dims[d] == KILN_RT_DYNAMIC_DIM ? size : type->dims[d];
    }
    size_t n = num_elements(type->rank, dims);
    void *data = malloc((n ? n : 1) * kiln_rt_dtype_size(type->dtype));
    for (size_t k = 0; k < n; ++k) {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      double v = (double)(state >> 11) / 9007199254740992.0 * 2 - 1;
      if (type->dtype == KILN_RT_F64)
        ((double *)data)[k] = v;
      else
        ((float *)data)[k] = (float)v;
    }
    inputs[i] = (kiln_rt_tensor){data, type->dtype, type->rank, dims};
    snprintf(path, sizeof(path), "%s/in%zu.npy", dir, i);
    kiln_rt_tensor_type written = type_of(&inputs[i]);
    write_npy(path, &written, data);
  }
  /* The outputs' dims: the module computes the dynamic ones. */
  size_t num_output_dims = 0;
  for (size_t i = 0; i < num_outputs; ++i)
    num_output_dims += kiln_rt_module_output(module, i)->rank;
  int64_t *output_dims = calloc(num_output_dims + 1, sizeof(int64_t));
  check("output dims",
        kiln_rt_module_output_dims(module, inputs, num_inputs, output_dims));
  for (size_t i = 0, k = 0; i < num_outputs; ++i) {
    const kiln_rt_tensor_type *type = kiln_rt_module_output(module, i);
    size_t n = num_elements(type->rank, output_dims + k);
    outputs[i] =
        (kiln_rt_tensor){malloc((n ? n : 1) * kiln_rt_dtype_size(type->dtype)),
                         type->dtype, type->rank, output_dims + k};
    k += type->rank;
  }
  check("run", kiln_rt_module_run(module, inputs, num_inputs, outputs,
                                  num_outputs, NULL));
  for (size_t i = 0; i < num_outputs; ++i) {
    snprintf(path, sizeof(path), "%s/out%zu.npy", dir, i);
    kiln_rt_tensor_type written = type_of(&outputs[i]);
    write_npy(path, &written, outputs[i].data);
  }

  /* Bad buffers: a status and a message, nothing run. */
  if (num_inputs > 0 && inputs[0].rank > 0) {
    /* The last dim: static in the modules this test runs. */
    kiln_rt_tensor wrong = inputs[0];
    int64_t dims[16];
    memcpy(dims, wrong.dims, wrong.rank * sizeof(int64_t));
    dims[wrong.rank - 1] += 1;
    wrong.dims = dims;
    kiln_rt_tensor saved = inputs[0];
    inputs[0] = wrong;
    expect_refused("a wrong shape was not refused",
                   kiln_rt_module_run(module, inputs, num_inputs, outputs,
                                      num_outputs, NULL),
                   KILN_RT_INVALID_ARGUMENT, "input0 must be tensor<");
    inputs[0] = saved;
  }
  /* An output of other dims than the inputs give. */
  if (dynamic && num_outputs > 0 && outputs[0].rank > 0) {
    int64_t *dims = (int64_t *)outputs[0].dims;
    dims[0] += 1;
    expect_refused("an output of the wrong dims was not refused",
                   kiln_rt_module_run(module, inputs, num_inputs, outputs,
                                      num_outputs, NULL),
                   KILN_RT_INVALID_ARGUMENT, "for these inputs");
    dims[0] -= 1;
  }
  expect_refused("a wrong count was not refused",
                 kiln_rt_module_run(module, inputs,
                                    num_inputs ? num_inputs - 1 : 1, outputs,
                                    num_outputs, NULL),
                 KILN_RT_INVALID_ARGUMENT, "");
  check_no_compiler_loaded();

  if (repeat > 0) {
    double *times = malloc((size_t)repeat * sizeof(double));
    for (int r = 0; r < repeat; ++r) {
      double start = now_ms();
      check("run", kiln_rt_module_run(module, inputs, num_inputs, outputs,
                                      num_outputs, NULL));
      times[r] = now_ms() - start;
    }
    qsort(times, (size_t)repeat, sizeof(double), by_value);
    printf("{\"run_ms\": %.4f, \"repeat\": %d}\n", times[repeat / 2], repeat);
    free(times);
  } else {
    printf("@%s: %zu inputs, %zu outputs: ran\n", kiln_rt_module_entry(module),
           num_inputs, num_outputs);
  }
  for (size_t i = 0; i < num_inputs; ++i) {
    free(inputs[i].data);
    free((int64_t *)inputs[i].dims);
  }
  free(output_dims);
  for (size_t i = 0; i < num_outputs; ++i)
    free(outputs[i].data);
  free(inputs);
  free(outputs);
  kiln_rt_module_free(module);
  return 0;
}
