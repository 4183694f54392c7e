/*===- mpi.c - loading MPI with dlopen ------------------------------------===*
 *
 * OpenMPI's predefined handles are the addresses of global objects
 * (ompi_mpi_comm_world, ...), found with dlsym; its plugins resolve
 * symbols of libmpi itself, so it is loaded RTLD_GLOBAL. MPICH's handles
 * are integer constants of its ABI.
 *
 *===----------------------------------------------------------------------===*/

#include "mpi.h"

#include "../common/status.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KILN_MPI_SYMBOLS(X)                                                    \
  X(Initialized)                                                               \
  X(Finalized)                                                                 \
  X(Init_thread)                                                               \
  X(Finalize)                                                                  \
  X(Abort)                                                                     \
  X(Comm_rank)                                                                 \
  X(Comm_size)                                                                 \
  X(Comm_set_errhandler)                                                       \
  X(Comm_split)                                                                \
  X(Iallreduce)                                                                \
  X(Iallgather)                                                                \
  X(Ireduce_scatter_block)                                                     \
  X(Test)                                                                      \
  X(Error_string)

/* OpenMPI's handles: the addresses of its predefined objects. */
static kiln_rt_status load_openmpi_handles(kiln_mpi *mpi) {
  static const struct {
    const char *symbol;
    size_t offset;
  } handles[] = {
      {"ompi_mpi_comm_world", offsetof(kiln_mpi, comm_world)},
      {"ompi_mpi_float", offsetof(kiln_mpi, f32)},
      {"ompi_mpi_double", offsetof(kiln_mpi, f64)},
      {"ompi_mpi_byte", offsetof(kiln_mpi, byte)},
      {"ompi_mpi_op_sum", offsetof(kiln_mpi, sum)},
      {"ompi_mpi_op_max", offsetof(kiln_mpi, max)},
      {"ompi_mpi_errors_return", offsetof(kiln_mpi, errors_return)},
  };
  for (size_t i = 0; i < sizeof(handles) / sizeof(handles[0]); ++i) {
    void *address = dlsym(mpi->library, handles[i].symbol);
    if (!address)
      return kiln_rt_status_make(KILN_RT_UNAVAILABLE,
                                 "kiln_rt_dist_init: %s has no %s: not OpenMPI",
                                 mpi->path, handles[i].symbol);
    *(kiln_mpi_handle *)((char *)mpi + handles[i].offset) =
        (kiln_mpi_handle)address;
  }
  /* OpenMPI's MPI_THREAD_MULTIPLE (mpi.h's enum) and MPI_UNDEFINED. */
  mpi->thread_multiple = 3;
  mpi->undefined = -32766;
  return KILN_RT_SUCCESS;
}

/* MPICH's handles (its mpi.h), for libmpi.so.12 and its derivatives. */
static void load_mpich_handles(kiln_mpi *mpi) {
  mpi->comm_world = 0x44000000;
  mpi->f32 = 0x4c00040a;
  mpi->f64 = 0x4c00080b;
  mpi->byte = 0x4c00010d;
  mpi->sum = 0x58000003;
  mpi->max = 0x58000001;
  mpi->errors_return = 0x54000001;
  /* MPICH's MPI_THREAD_MULTIPLE and MPI_UNDEFINED. */
  mpi->thread_multiple = 3;
  mpi->undefined = -32766;
}

kiln_rt_status kiln_mpi_load(kiln_mpi *mpi) {
  memset(mpi, 0, sizeof(*mpi));
  const char *named = getenv("KILN_MPI_LIBRARY");
  const char *candidates[] = {named && *named ? named : "libmpi.so.40",
                              named && *named ? NULL : "libmpi.so.12"};
  char tried[512] = "";
  for (size_t i = 0; i < 2 && candidates[i]; ++i) {
    mpi->library = dlopen(candidates[i], RTLD_NOW | RTLD_GLOBAL);
    if (mpi->library) {
      mpi->path = candidates[i];
      break;
    }
    const char *why = dlerror();
    size_t used = strlen(tried);
    snprintf(tried + used, sizeof(tried) - used, "%s%s", used ? "; " : "",
             why ? why : candidates[i]);
  }
  if (!mpi->library)
    return kiln_rt_status_make(
        KILN_RT_UNAVAILABLE,
        "kiln_rt_dist_init: cannot load MPI (%s); install "
        "OpenMPI (libopenmpi3) or set KILN_MPI_LIBRARY",
        tried);
#define KILN_MPI_RESOLVE(name)                                                 \
  *(void **)&mpi->name = dlsym(mpi->library, "MPI_" #name);                    \
  if (!mpi->name)                                                              \
    return kiln_rt_status_make(KILN_RT_UNAVAILABLE,                            \
                               "kiln_rt_dist_init: %s has no MPI_" #name,      \
                               mpi->path);
  KILN_MPI_SYMBOLS(KILN_MPI_RESOLVE)
#undef KILN_MPI_RESOLVE
  if (dlsym(mpi->library, "ompi_mpi_comm_world"))
    return load_openmpi_handles(mpi);
  /* Callable before MPI_Init; MPICH's derivatives (Intel MPI, MVAPICH)
   * name MPICH in it too. */
  int (*get_library_version)(char *, int *);
  *(void **)&get_library_version =
      dlsym(mpi->library, "MPI_Get_library_version");
  static char version[8192];
  int length = 0;
  if (get_library_version && get_library_version(version, &length) == 0 &&
      length > 0 && length < (int)sizeof(version)) {
    version[length] = '\0';
    if (strstr(version, "MPICH")) {
      load_mpich_handles(mpi);
      return KILN_RT_SUCCESS;
    }
  }
  return kiln_rt_status_make(
      KILN_RT_UNAVAILABLE,
      "kiln_rt_dist_init: %s is neither OpenMPI nor MPICH "
      "(its handles are unknown)",
      mpi->path);
}

kiln_rt_status kiln_mpi_fail(const kiln_mpi *mpi, const char *call, int code) {
  char text[512] = "";
  int length = 0;
  if (!mpi->Error_string || mpi->Error_string(code, text, &length) != 0 ||
      length <= 0)
    snprintf(text, sizeof(text), "unknown error");
  text[sizeof(text) - 1] = '\0';
  return kiln_rt_status_make(KILN_RT_DEVICE_ERROR, "%s: %s (MPI error %d)",
                             call, text, code);
}
