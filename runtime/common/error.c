/*===- error.c - the runtime's last error, per thread ---------------------===*/

#include "error.h"

#include <stdarg.h>
#include <stdio.h>

static _Thread_local char last_error[1024];

kiln_rt_status kiln_rt_fail(kiln_rt_status status, const char *format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(last_error, sizeof(last_error), format, args);
  va_end(args);
  return status;
}

const char *kiln_rt_last_error(void) { return last_error; }
