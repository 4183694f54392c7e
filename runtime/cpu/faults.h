/*===- faults.h - injected host-memory failures, for tests ------*- C -*-===*
 *
 * KILN_RT_FAIL_HOST_ALLOC_AT=N: the Nth allocation of host memory (the
 * buffer cache's or the host allocator's) fails as if memory had run out,
 * and says so on stderr ("kiln-rt: host allocation N fails"). Read once.
 *
 *===----------------------------------------------------------------------===*/

#ifndef KILN_RT_CPU_FAULTS_H
#define KILN_RT_CPU_FAULTS_H

#include <stddef.h>
#include <stdint.h>

/* Counts one allocation; nonzero when it is the one to fail. */
int kiln_rt_injected_host_alloc_failure(void);

/* The host statistics (host_allocator.c) of buffers the host allocator
 * does not make: live_bytes and peak_bytes grow and shrink by `bytes`. */
void kiln_host_stats_add(uint64_t bytes);
void kiln_host_stats_sub(uint64_t bytes);

/* A buffer of the buffer cache that counts in the host statistics until it
 * is freed (_mlir_memref_to_llvm_free): compiled code's buffers and a host
 * program's buffers of run-time sizes. NULL when out of memory. */
void *kiln_buffer_alloc_counted(size_t alignment, size_t size);

#endif /* KILN_RT_CPU_FAULTS_H */
