/*===- kiln_rt_program.h - host programs: the steps of a compiled entry ---===*
 *
 * A compiled entry only sequences work: it allocates and frees buffers,
 * calls kernels and runtime functions (BLAS) on strided views of them,
 * copies views and launches GPU kernels. Where the entry has dynamic dims,
 * its sizes are computed at run time from the inputs' dims, and the sizes
 * that must agree are checked before anything runs. The compiler writes
 * that sequence as a host program (the versioned "KILNHP" bytes); this API
 * reads it, checking every field that running relies on, and runs it on the
 * CPU or on a GPU. It is the one executor of kiln: the compiler's CPU and
 * CUDA executables and ahead-of-time modules (kiln_rt_module.h) all run
 * their entries through it.
 *
 * Errors: every call that can fail returns a status (kiln_rt.h) whose
 * message says why.
 *
 *===----------------------------------------------------------------------===*/

#ifndef KILN_RT_KILN_RT_PROGRAM_H
#define KILN_RT_KILN_RT_PROGRAM_H

#include "kiln_rt/kiln_rt.h"
#include "kiln_rt/kiln_rt_cuda.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kiln_rt_program kiln_rt_program;

/* Reads host-program bytes. Bytes that serialize() did not write (a
 * truncated or corrupt program, another format version) are an error,
 * never a crash. */
kiln_rt_status kiln_rt_program_create(const void *bytes, size_t size,
                                      kiln_rt_program **out);
void kiln_rt_program_destroy(kiln_rt_program *program);

/* The buffers a run takes: the entry's inputs, then its results. */
int32_t kiln_rt_program_num_arguments(const kiln_rt_program *program);
int32_t kiln_rt_program_num_inputs(const kiln_rt_program *program);
/* The rank of argument `index` (an input or a result); 0 past the end. */
uint32_t kiln_rt_program_argument_rank(const kiln_rt_program *program,
                                       int32_t index);
/* Whether an input has a dynamic dim: a run then takes the inputs' dims. */
int kiln_rt_program_is_dynamic(const kiln_rt_program *program);
/* The results' dims for inputs of `input_dims` (every dim of every input,
 * flattened in order; NULL for a static program), flattened into
 * `result_dims` (the sum of the results' ranks). Fails, naming the op, where
 * sizes that must agree do not. */
kiln_rt_status kiln_rt_program_result_dims(const kiln_rt_program *program,
                                           const int64_t *input_dims,
                                           int64_t *result_dims);
int64_t kiln_rt_program_num_steps(const kiln_rt_program *program);
/* The kernels the steps call, by symbol name, in the order that
 * kiln_rt_program_bind_cpu takes their entry points. */
size_t kiln_rt_program_num_kernels(const kiln_rt_program *program);
const char *kiln_rt_program_kernel_name(const kiln_rt_program *program,
                                        size_t index);
/* The runtime functions (BLAS) the steps call. */
size_t kiln_rt_program_num_runtime_functions(const kiln_rt_program *program);
/* The steps that launch a kernel or call a runtime function (a product). */
size_t kiln_rt_program_num_calls(const kiln_rt_program *program);
/* Whether a step launches GPU kernels (a CUDA program). */
int kiln_rt_program_has_launches(const kiln_rt_program *program);
/* Whether a step calls a CPU kernel (a CPU program). */
int kiln_rt_program_has_host_kernels(const kiln_rt_program *program);
/* Whether a step is a collective across ranks (kiln_rt_dist.h). */
int kiln_rt_program_has_collectives(const kiln_rt_program *program);

/* The memory plan. The buffers a program allocates with sizes it knows
 * (every buffer of a static program) share one arena per run, at offsets
 * planned from when each is live (its alloc step to its free step): two
 * buffers live at once never overlap. A run allocates the arena once (on
 * the GPU too, outside graphs, whose temporaries are their own); buffers of
 * sizes computed at run time come from the buffer cache. */
typedef struct kiln_rt_memory_plan {
  int64_t arena_bytes;       /* the arena a run takes; 0: none */
  int64_t planned_buffers;   /* allocations placed in it */
  int64_t unplanned_buffers; /* allocations of run-time sizes */
  int64_t buffer_bytes;      /* the planned buffers' bytes, unshared */
  int64_t live_peak_bytes;   /* the most of them live at one step: the
                                smallest arena any plan could have */
} kiln_rt_memory_plan;
void kiln_rt_program_get_memory_plan(const kiln_rt_program *program,
                                     kiln_rt_memory_plan *plan);

/* A debug mode: host buffers are filled with 0xFF bytes (NaN, -1) when a
 * run allocates them and again when it frees them, so that a step that
 * reads a value no earlier step wrote (or one already freed) shows it.
 * Off unless KILN_POISON_BUFFERS=1 (read at the first run) or set here. */
void kiln_rt_set_buffer_poisoning(int on);

/* Time spent in calls, for profiles. */
typedef struct kiln_rt_profile {
  uint64_t calls; /* kernel launches and runtime calls, added to */
  double ns;      /* their time (on a GPU: the run's device time) */
  /* When set (CPU only): each call, and each copy as "copy", by name. */
  void (*on_call)(void *context, const char *name, double ns);
  void *context;
} kiln_rt_profile;

/* --- On the CPU ----------------------------------------------------------- */

/* A kernel's packed entry point: each argument passed by address. */
typedef void (*kiln_rt_kernel_entry)(void **arguments);

/* Sets the kernels' entry points (`count` of them, in kernel-name order) and
 * finds the runtime functions the steps call in the runtime itself. */
kiln_rt_status kiln_rt_program_bind_cpu(kiln_rt_program *program,
                                        const kiln_rt_kernel_entry *kernels,
                                        size_t count);

/* Runs a bound program on host `buffers` (the inputs, then the caller's
 * result buffers, of the dims kiln_rt_program_result_dims gives), the
 * inputs of `input_dims` (as there; NULL for a static program), with
 * `profile` NULL or added to. Buffers the program
 * allocates come from the runtime's buffer cache; on failure those
 * allocated so far are freed. */
kiln_rt_status kiln_rt_program_run_cpu(const kiln_rt_program *program,
                                       void *const *buffers, size_t count,
                                       const int64_t *input_dims,
                                       kiln_rt_profile *profile);

/* --- On a GPU (kiln_rt_cuda.h) ------------------------------------------- */

/* Whether the CUDA executor can run every step (no CPU kernels, matrix
 * products cuBLAS takes, dense copies). Needs no device. */
kiln_rt_status kiln_rt_program_check_cuda(kiln_rt_program *program);

/* Whether the CUDA executor runs the runtime function `name` (a product
 * through cuBLAS: kiln_rt_matmul_f32tf32_nn, kiln_rt_batch_matmul_bf16_nt_set,
 * ...); compilers check their calls with it. Needs no device. */
int kiln_rt_program_cuda_runs(const char *name);

/* Loads the kernels from `ptx` and uploads the program's constants, once
 * per session of the CUDA runtime (kiln_rt_cuda_session); thread-safe. */
kiln_rt_status kiln_rt_program_load_cuda(kiln_rt_program *program,
                                         const char *ptx, size_t size);

/* Queues a loaded program's steps on `stream` (NULL: the default stream)
 * on device `buffers` (the inputs, then the results; `input_dims` as for
 * kiln_rt_program_run_cpu). Buffers it allocates
 * are freed (stream-ordered) before it returns. With a profile, waits for
 * the steps and adds their device time. */
kiln_rt_status kiln_rt_program_run_cuda(const kiln_rt_program *program,
                                        void *const *buffers, size_t count,
                                        const int64_t *input_dims,
                                        kiln_rt_cuda_stream *stream,
                                        kiln_rt_profile *profile);

/* A loaded program's steps for one set of input dims, captured into a CUDA
 * graph: every launch, copy and product of a run in one graph launch. The
 * graph owns the run's temporaries (stream-ordered reuse inside it, kept
 * between replays), so that their addresses never change. */
typedef struct kiln_rt_program_graph kiln_rt_program_graph;

/* Captures `program`'s run on `buffers` and `input_dims` (as for
 * kiln_rt_program_run_cuda) into `*graph`, on a stream of its own; queues
 * nothing (kiln_rt_program_graph_launch runs it). Run the program directly
 * once first: libraries such as cuBLAS set themselves up on their first
 * call, which a capture cannot hold. With a `sibling` (a graph of the same
 * program and input dims, launched on the same stream), the two share
 * their temporaries; else the graph allocates its own. */
kiln_rt_status kiln_rt_program_capture_cuda(const kiln_rt_program *program,
                                            void *const *buffers, size_t count,
                                            const int64_t *input_dims,
                                            kiln_rt_program_graph *sibling,
                                            kiln_rt_program_graph **graph);

/* How many of `buffers` a run of `graph` on them finds moved since its last
 * run (each costs its kernel nodes an update), or SIZE_MAX where it needs
 * a new capture: a buffer that a copy or a product takes moved. */
size_t kiln_rt_program_graph_moved(const kiln_rt_program_graph *graph,
                                   void *const *buffers, size_t count);

/* Readies `graph` for a run on `buffers` (same count and input dims as
 * captured; other addresses are allowed), queueing nothing: a kernel node
 * that takes a moved buffer gets its new parameters in place; a copy or a
 * product of one has it baked in, and the run is captured again and the
 * graph updated from that capture. A graph that failed to update fails
 * every later call (destroy it, and capture again or run directly). */
kiln_rt_status kiln_rt_program_graph_prepare(kiln_rt_program_graph *graph,
                                             void *const *buffers, size_t count,
                                             const int64_t *input_dims);
/* Queues one run of `graph` as last prepared, on `stream`; with a profile,
 * as kiln_rt_program_run_cuda. */
kiln_rt_status kiln_rt_program_graph_launch(kiln_rt_program_graph *graph,
                                            kiln_rt_cuda_stream *stream,
                                            kiln_rt_profile *profile);
/* Prepare, then launch. Not thread-safe for one graph (nor are the two
 * above). */
kiln_rt_status kiln_rt_program_graph_run(kiln_rt_program_graph *graph,
                                         void *const *buffers, size_t count,
                                         const int64_t *input_dims,
                                         kiln_rt_cuda_stream *stream,
                                         kiln_rt_profile *profile);

/* The kernel launches and products a replay of `graph` runs. */
size_t kiln_rt_program_graph_calls(const kiln_rt_program_graph *graph);
/* The runs of `graph` that captured it again. */
size_t kiln_rt_program_graph_recaptures(const kiln_rt_program_graph *graph);

/* Frees `graph` and gives its temporaries back (stream-ordered, so a
 * queued replay still finds them); NULL is a no-op. */
void kiln_rt_program_graph_destroy(kiln_rt_program_graph *graph);

#ifdef __cplusplus
}
#endif

#endif /* KILN_RT_KILN_RT_PROGRAM_H */
