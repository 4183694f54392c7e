/*===- mpi.h - the MPI entry points the runtime loads ---------------------===*
 *
 * MPI is loaded with dlopen, never linked. Its handles (communicators,
 * datatypes, ops, requests) are pointers in OpenMPI and ints in MPICH;
 * both are passed here as one machine word, which the calling convention
 * of every 64-bit target kiln runs on passes alike.
 *
 *===----------------------------------------------------------------------===*/

#ifndef KILN_RT_DIST_MPI_H
#define KILN_RT_DIST_MPI_H

#include "kiln_rt/kiln_rt.h"

#include <stdint.h>

typedef uintptr_t kiln_mpi_handle;

typedef struct kiln_mpi {
  void *library;
  const char *path;
  int (*Initialized)(int *flag);
  int (*Finalized)(int *flag);
  int (*Init_thread)(int *argc, char ***argv, int required, int *provided);
  int (*Finalize)(void);
  int (*Abort)(kiln_mpi_handle comm, int code);
  int (*Comm_rank)(kiln_mpi_handle comm, int *rank);
  int (*Comm_size)(kiln_mpi_handle comm, int *size);
  int (*Comm_set_errhandler)(kiln_mpi_handle comm, kiln_mpi_handle handler);
  int (*Comm_split)(kiln_mpi_handle comm, int color, int key,
                    kiln_mpi_handle *out);
  int (*Iallreduce)(const void *input, void *output, int count,
                    kiln_mpi_handle dtype, kiln_mpi_handle op,
                    kiln_mpi_handle comm, kiln_mpi_handle *request);
  int (*Iallgather)(const void *input, int input_count,
                    kiln_mpi_handle input_dtype, void *output, int output_count,
                    kiln_mpi_handle output_dtype, kiln_mpi_handle comm,
                    kiln_mpi_handle *request);
  int (*Ireduce_scatter_block)(const void *input, void *output, int count,
                               kiln_mpi_handle dtype, kiln_mpi_handle op,
                               kiln_mpi_handle comm, kiln_mpi_handle *request);
  int (*Test)(kiln_mpi_handle *request, int *flag, void *status);
  int (*Error_string)(int code, char *text, int *length);
  /* The predefined handles. */
  kiln_mpi_handle comm_world, f32, f64, byte, sum, max, errors_return;
  int thread_multiple, undefined;
} kiln_mpi;

/* Loads libmpi (KILN_MPI_LIBRARY, else OpenMPI's libmpi.so.40) into
 * `*mpi`. Fails, naming the library or the missing symbol. */
kiln_rt_status kiln_mpi_load(kiln_mpi *mpi);

/* The failure "CALL: MPI's message for code (MPI error N)". */
kiln_rt_status kiln_mpi_fail(const kiln_mpi *mpi, const char *call, int code);

#endif /* KILN_RT_DIST_MPI_H */
