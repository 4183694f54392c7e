/*===- streams.c - streams, copies, launches and events -------------------===*
 *
 * Thin, checked wrappers: each validates its arguments, makes the context
 * current, and names the driver call in any error.
 *
 *===----------------------------------------------------------------------===*/

#include "driver.h"

#include <stdatomic.h>
#include <stdlib.h>

static CUstream handle_of(kiln_rt_cuda_stream *stream) {
  return kiln_cuda_stream_handle(stream);
}

static CUdeviceptr device_address(const void *ptr) {
  return (CUdeviceptr)(uintptr_t)ptr;
}

kiln_rt_status kiln_rt_cuda_stream_create(kiln_rt_cuda_stream **out) {
  kiln_rt_status status = kiln_cuda_enter("kiln_rt_cuda_stream_create");
  if (status)
    return status;
  if (!out)
    return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT,
                               "kiln_rt_cuda_stream_create: stream is NULL");
  kiln_rt_cuda_stream *stream = calloc(1, sizeof(*stream));
  if (!stream)
    return kiln_rt_status_make(
        KILN_RT_OUT_OF_MEMORY,
        "kiln_rt_cuda_stream_create: out of host memory");
  status =
      KILN_CUDA_CALL(cuStreamCreate, (&stream->handle, CU_STREAM_NON_BLOCKING));
  if (status) {
    free(stream);
    return status;
  }
  *out = stream;
  return KILN_RT_SUCCESS;
}

kiln_rt_status kiln_rt_cuda_stream_destroy(kiln_rt_cuda_stream *stream) {
  if (!stream)
    return KILN_RT_SUCCESS;
  kiln_rt_status status = kiln_cuda_enter("kiln_rt_cuda_stream_destroy");
  if (status)
    return status;
  status = KILN_CUDA_CALL(cuStreamDestroy_v2, (stream->handle));
  free(stream);
  return status;
}

kiln_rt_status kiln_rt_cuda_stream_synchronize(kiln_rt_cuda_stream *stream) {
  KILN_RT_RETURN_IF_ERROR(kiln_cuda_enter("kiln_rt_cuda_stream_synchronize"));
  return KILN_CUDA_CALL(cuStreamSynchronize, (handle_of(stream)));
}

/* Common checks of the copies. */
static kiln_rt_status enter_copy(const char *api, const void *dst,
                                 const void *src, size_t bytes) {
  KILN_RT_RETURN_IF_ERROR(kiln_cuda_enter(api));
  if (bytes && (!dst || !src))
    return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT,
                               "%s: a NULL pointer for %zu bytes", api, bytes);
  return KILN_RT_SUCCESS;
}

static _Atomic uint64_t h2d_bytes, d2h_bytes, h2d_copies, d2h_copies;

void kiln_rt_cuda_get_transfer_stats(kiln_rt_cuda_transfer_stats *stats) {
  if (!stats)
    return;
  stats->host_to_device_bytes = atomic_load(&h2d_bytes);
  stats->device_to_host_bytes = atomic_load(&d2h_bytes);
  stats->host_to_device_copies = atomic_load(&h2d_copies);
  stats->device_to_host_copies = atomic_load(&d2h_copies);
}

kiln_rt_status kiln_rt_cuda_copy_to_device(void *device_dst,
                                           const void *host_src, size_t bytes,
                                           kiln_rt_cuda_stream *stream) {
  kiln_rt_status status =
      enter_copy("kiln_rt_cuda_copy_to_device", device_dst, host_src, bytes);
  if (status || bytes == 0)
    return status;
  atomic_fetch_add(&h2d_bytes, bytes);
  atomic_fetch_add(&h2d_copies, 1);
  return KILN_CUDA_CALL(
      cuMemcpyHtoDAsync_v2,
      (device_address(device_dst), host_src, bytes, handle_of(stream)));
}

kiln_rt_status kiln_rt_cuda_copy_to_host(void *host_dst, const void *device_src,
                                         size_t bytes,
                                         kiln_rt_cuda_stream *stream) {
  kiln_rt_status status =
      enter_copy("kiln_rt_cuda_copy_to_host", host_dst, device_src, bytes);
  if (status || bytes == 0)
    return status;
  atomic_fetch_add(&d2h_bytes, bytes);
  atomic_fetch_add(&d2h_copies, 1);
  return KILN_CUDA_CALL(
      cuMemcpyDtoHAsync_v2,
      (host_dst, device_address(device_src), bytes, handle_of(stream)));
}

kiln_rt_status kiln_rt_cuda_copy_device(void *device_dst,
                                        const void *device_src, size_t bytes,
                                        kiln_rt_cuda_stream *stream) {
  kiln_rt_status status =
      enter_copy("kiln_rt_cuda_copy_device", device_dst, device_src, bytes);
  if (status || bytes == 0)
    return status;
  return KILN_CUDA_CALL(cuMemcpyDtoDAsync_v2,
                        (device_address(device_dst), device_address(device_src),
                         bytes, handle_of(stream)));
}

kiln_rt_status kiln_rt_cuda_memset_zero(void *device_dst, size_t bytes,
                                        kiln_rt_cuda_stream *stream) {
  kiln_rt_status status =
      enter_copy("kiln_rt_cuda_memset_zero", device_dst, device_dst, bytes);
  if (status || bytes == 0)
    return status;
  return KILN_CUDA_CALL(cuMemsetD8Async, (device_address(device_dst), 0, bytes,
                                          handle_of(stream)));
}

kiln_rt_status kiln_rt_cuda_launch(kiln_rt_cuda_function *function,
                                   const unsigned grid[3],
                                   const unsigned block[3],
                                   unsigned shared_bytes,
                                   kiln_rt_cuda_stream *stream, void **params) {
  kiln_rt_status status = kiln_cuda_enter("kiln_rt_cuda_launch");
  if (status)
    return status;
  if (!function || !grid || !block)
    return kiln_rt_status_make(
        KILN_RT_INVALID_ARGUMENT,
        "kiln_rt_cuda_launch: needs a function, a grid and "
        "a block");
  for (int d = 0; d < 3; ++d)
    if (grid[d] == 0 || block[d] == 0)
      return kiln_rt_status_make(
          KILN_RT_INVALID_ARGUMENT,
          "kiln_rt_cuda_launch: \"%s\" with an empty grid "
          "(%u, %u, %u) or block (%u, %u, %u)",
          function->name, grid[0], grid[1], grid[2], block[0], block[1],
          block[2]);
  status = KILN_CUDA_CALL(cuLaunchKernel,
                          (function->handle, grid[0], grid[1], grid[2],
                           block[0], block[1], block[2], shared_bytes,
                           handle_of(stream), params, NULL));
  /* Names the kernel too. */
  return kiln_status_append(status, " (kernel \"%s\")", function->name);
}

kiln_rt_status kiln_rt_cuda_event_create(kiln_rt_cuda_event **out) {
  kiln_rt_status status = kiln_cuda_enter("kiln_rt_cuda_event_create");
  if (status)
    return status;
  if (!out)
    return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT,
                               "kiln_rt_cuda_event_create: event is NULL");
  kiln_rt_cuda_event *event = calloc(1, sizeof(*event));
  if (!event)
    return kiln_rt_status_make(KILN_RT_OUT_OF_MEMORY,
                               "kiln_rt_cuda_event_create: out of host memory");
  status = KILN_CUDA_CALL(cuEventCreate, (&event->handle, 0));
  if (status) {
    free(event);
    return status;
  }
  *out = event;
  return KILN_RT_SUCCESS;
}

kiln_rt_status kiln_rt_cuda_event_destroy(kiln_rt_cuda_event *event) {
  if (!event)
    return KILN_RT_SUCCESS;
  kiln_rt_status status = kiln_cuda_enter("kiln_rt_cuda_event_destroy");
  if (status)
    return status;
  status = KILN_CUDA_CALL(cuEventDestroy_v2, (event->handle));
  free(event);
  return status;
}

kiln_rt_status kiln_rt_cuda_event_record(kiln_rt_cuda_event *event,
                                         kiln_rt_cuda_stream *stream) {
  KILN_RT_RETURN_IF_ERROR(kiln_cuda_enter("kiln_rt_cuda_event_record"));
  if (!event)
    return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT,
                               "kiln_rt_cuda_event_record: event is NULL");
  return KILN_CUDA_CALL(cuEventRecord, (event->handle, handle_of(stream)));
}

kiln_rt_status kiln_rt_cuda_event_synchronize(kiln_rt_cuda_event *event) {
  KILN_RT_RETURN_IF_ERROR(kiln_cuda_enter("kiln_rt_cuda_event_synchronize"));
  if (!event)
    return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT,
                               "kiln_rt_cuda_event_synchronize: event is NULL");
  return KILN_CUDA_CALL(cuEventSynchronize, (event->handle));
}

kiln_rt_status kiln_rt_cuda_event_elapsed_ms(kiln_rt_cuda_event *start,
                                             kiln_rt_cuda_event *end,
                                             float *ms) {
  KILN_RT_RETURN_IF_ERROR(kiln_cuda_enter("kiln_rt_cuda_event_elapsed_ms"));
  if (!start || !end || !ms)
    return kiln_rt_status_make(
        KILN_RT_INVALID_ARGUMENT,
        "kiln_rt_cuda_event_elapsed_ms: needs two events "
        "and a result pointer");
  KILN_CUDA_RETURN_IF_ERROR(cuEventSynchronize, (end->handle));
  return KILN_CUDA_CALL(cuEventElapsedTime_v2,
                        (ms, start->handle, end->handle));
}
