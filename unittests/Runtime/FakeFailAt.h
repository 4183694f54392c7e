/*===- FakeFailAt.h - the stand-ins' "fail the Nth call" ---------*- C -*-===*
 *
 * Shared by the stand-in CUDA driver and cuBLAS: counts one call to an
 * entry point in `*calls` and says whether it is the one that the variable
 * `variable` (FAKE_CUDA_FAIL_AT, FAKE_CUBLAS_FAIL_AT) names, printing
 * "LABEL: call N (NAME) fails" on stderr when it is, followed by
 * " while capturing" when a stream is capturing a graph.
 *
 *===----------------------------------------------------------------------===*/

#ifndef KILN_UNITTESTS_RUNTIME_FAKEFAILAT_H
#define KILN_UNITTESTS_RUNTIME_FAKEFAILAT_H

#include <stdio.h>
#include <stdlib.h>

static inline int fake_fails_at(long *calls, const char *variable,
                                const char *label, const char *name,
                                int capturing) {
  ++*calls;
  const char *at = getenv(variable);
  if (!at || *calls != atol(at))
    return 0;
  fprintf(stderr, "%s: call %ld (%s) fails%s\n", label, *calls, name,
          capturing ? " while capturing" : "");
  return 1;
}

#endif /* KILN_UNITTESTS_RUNTIME_FAKEFAILAT_H */
