/*===- error.h - the runtime's last error, per thread ---------------------===*/

#ifndef KILN_RT_COMMON_ERROR_H
#define KILN_RT_COMMON_ERROR_H

#include "kiln_rt/kiln_rt.h"

/* Sets kiln_rt_last_error() (printf-style) and returns `status`. */
kiln_rt_status kiln_rt_fail(kiln_rt_status status, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

#endif /* KILN_RT_COMMON_ERROR_H */
