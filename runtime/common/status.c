/*===- status.c - the runtime's statuses: a code and a message ------------===*
 *
 * A failure is one allocation: the record, then its message. When even that
 * cannot be had, a static out-of-memory record stands in, which free
 * ignores: a failure is never lost as NULL (success).
 *
 *===----------------------------------------------------------------------===*/

#include "status.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct kiln_rt_status_record {
  kiln_rt_status_code code;
  const char *message; /* after the record, or static */
};

static struct kiln_rt_status_record out_of_memory = {
    KILN_RT_OUT_OF_MEMORY, "out of host memory (for an error's message)"};

const char *kiln_rt_status_string(kiln_rt_status_code code) {
  switch (code) {
  case KILN_RT_OK:
    return "ok";
  case KILN_RT_INVALID_ARGUMENT:
    return "invalid argument";
  case KILN_RT_OUT_OF_MEMORY:
    return "out of memory";
  case KILN_RT_UNAVAILABLE:
    return "unavailable";
  case KILN_RT_INTERNAL:
    return "internal error";
  case KILN_RT_DEVICE_ERROR:
    return "device error";
  }
  return "unknown status";
}

/* A record of `code` whose message is `before`, `format` with `args`,
 * `separator`, then `after`; the static out-of-memory one when there is no
 * memory. */
static kiln_rt_status make(kiln_rt_status_code code, const char *before,
                           const char *format, va_list args,
                           const char *separator, const char *after) {
  va_list counting;
  va_copy(counting, args);
  int length = vsnprintf(NULL, 0, format, counting);
  va_end(counting);
  if (length < 0) /* a bad format: keep the rest */
    length = 0;
  size_t first = strlen(before), middle = strlen(separator);
  size_t last = strlen(after);
  struct kiln_rt_status_record *record =
      malloc(sizeof(*record) + first + (size_t)length + middle + last + 1);
  if (!record)
    return &out_of_memory;
  char *message = (char *)(record + 1), *end = message;
  memcpy(end, before, first);
  end += first;
  if (length > 0)
    vsnprintf(end, (size_t)length + 1, format, args);
  end += length;
  memcpy(end, separator, middle);
  memcpy(end + middle, after, last + 1);
  record->code = code;
  record->message = message;
  return record;
}

kiln_rt_status kiln_rt_status_make(kiln_rt_status_code code, const char *format,
                                   ...) {
  if (code == KILN_RT_OK)
    return KILN_RT_SUCCESS;
  va_list args;
  va_start(args, format);
  kiln_rt_status status = make(code, "", format, args, "", "");
  va_end(args);
  return status;
}

kiln_rt_status_code kiln_rt_status_code_of(kiln_rt_status status) {
  return status ? status->code : KILN_RT_OK;
}

const char *kiln_rt_status_message(kiln_rt_status status) {
  return status ? status->message : "";
}

void kiln_rt_status_free(kiln_rt_status status) {
  if (status != &out_of_memory)
    free(status);
}

/* `status` with `made` in its place, unless no memory was left for it (then
 * `status` itself: its message says more than the stand-in's). */
static kiln_rt_status replace(kiln_rt_status status, kiln_rt_status made) {
  if (made == &out_of_memory)
    return status;
  kiln_rt_status_free(status);
  return made;
}

kiln_rt_status kiln_rt_status_annotate(kiln_rt_status status,
                                       const char *format, ...) {
  if (!status)
    return status;
  va_list args;
  va_start(args, format);
  kiln_rt_status made =
      make(status->code, "", format, args, ": ", status->message);
  va_end(args);
  return replace(status, made);
}

kiln_rt_status kiln_status_append(kiln_rt_status status, const char *format,
                                  ...) {
  if (!status)
    return status;
  va_list args;
  va_start(args, format);
  kiln_rt_status made =
      make(status->code, status->message, format, args, "", "");
  va_end(args);
  return replace(status, made);
}
