/*===- faults.h - injected host-memory failures, for tests ------*- C -*-===*
 *
 * KILN_RT_FAIL_HOST_ALLOC_AT=N: the Nth allocation of host memory (the
 * buffer cache's or the host allocator's) fails as if memory had run out,
 * and says so on stderr ("kiln-rt: host allocation N fails"). Read once.
 *
 *===----------------------------------------------------------------------===*/

#ifndef KILN_RT_CPU_FAULTS_H
#define KILN_RT_CPU_FAULTS_H

/* Counts one allocation; nonzero when it is the one to fail. */
int kiln_rt_injected_host_alloc_failure(void);

#endif /* KILN_RT_CPU_FAULTS_H */
