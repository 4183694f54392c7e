/*===- cpu_work.h - GEMM and threads for the runtime's own CPU kernels ----===*
 *
 * Private to runtime/cpu. blas.c owns the CBLAS and the OpenMP pool that
 * the compiled kernels run on; the runtime's own kernels (attention.c) use
 * them through these.
 *
 *===----------------------------------------------------------------------===*/

#ifndef KILN_RUNTIME_CPU_CPU_WORK_H
#define KILN_RUNTIME_CPU_CPU_WORK_H

#include <stdint.h>

/* C (m x n) = op(A) op(B) + (accumulate ? C : 0) on one thread, with op
 * the transpose when ta / tb is set; any strides (a CBLAS where the layout
 * allows, else a plain loop). */
void kiln_cpu_gemm_f32(int ta, int tb, int64_t m, int64_t n, int64_t k,
                       const float *a, int64_t as0, int64_t as1, const float *b,
                       int64_t bs0, int64_t bs1, float *c, int64_t cs0,
                       int64_t cs1, int accumulate);

/* Runs body(context, begin, end) over parts of [0, count) on the OpenMP
 * pool when the process has it (one part per thread), else at once. */
void kiln_cpu_parallel_for(int64_t count,
                           void (*body)(void *context, int64_t begin,
                                        int64_t end),
                           void *context);

/* How many descriptors the entry point kiln_rt_blas_lookup(name) takes;
 * 0 for an unknown name. */
int kiln_cpu_entry_arity(const char *name);

#endif /* KILN_RUNTIME_CPU_CPU_WORK_H */
