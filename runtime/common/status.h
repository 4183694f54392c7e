/*===- status.h - making and passing on the runtime's statuses ------------===*
 *
 * Internal to the runtime: what its files share to fail with a message and
 * to pass a callee's failure on (kiln_rt.h has the public half).
 *
 *===----------------------------------------------------------------------===*/

#ifndef KILN_RT_COMMON_STATUS_H
#define KILN_RT_COMMON_STATUS_H

#include "kiln_rt/kiln_rt.h"

/* Puts text after a failure's message, taking `status` and returning the
 * longer one; NULL stays NULL (as kiln_rt_status_annotate, at the end). */
kiln_rt_status kiln_status_append(kiln_rt_status status, const char *format,
                                  ...) KILN_RT_PRINTF_FORMAT(2, 3);

/* Returns the failure of `expr` (a kiln_rt_status) from the enclosing
 * function. */
#define KILN_RT_RETURN_IF_ERROR(expr)                                          \
  do {                                                                         \
    kiln_rt_status kiln_status_ = (expr);                                      \
    if (kiln_status_)                                                          \
      return kiln_status_;                                                     \
  } while (0)

#endif /* KILN_RT_COMMON_STATUS_H */
