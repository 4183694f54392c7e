/*===- program_graph.c - a host program's run as one CUDA graph -----------===*
 *
 * A run is captured in two passes of the CUDA executor over the steps. The
 * first plans the temporaries: each allocation takes the smallest free
 * block of the graph's own that fits, or a new one, and a free makes its
 * block free again, so that the graph holds what a direct run's peak
 * needs, not the sum of its allocations. Those blocks are allocated, and
 * the second pass captures the launches, copies and products on them.
 * Because the temporaries stay with the graph, only the program's own
 * buffers (inputs and results) can move between replays: each kernel node
 * records which of its parameter words hold which buffer, to be set in
 * place. A copy or a cuBLAS product has its addresses baked in: a replay
 * where one of its buffers moved captures again and updates the graph.
 *
 *===----------------------------------------------------------------------===*/

#include "../common/status.h"
#include "program_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A kernel node: the step it launches, its parameter words, and which of
 * them hold a buffer of the program's (word index, argument). */
typedef struct kiln_graph_launch {
  kiln_rt_cuda_graph_node *node;
  const kiln_step *step;
  uint32_t grid[3];
  size_t first_word, num_words;
  size_t first_ref, num_refs;
} kiln_graph_launch;

typedef struct kiln_graph_ref {
  uint32_t word;
  int32_t argument;
} kiln_graph_ref;

/* The temporaries: blocks, and the block of each allocation in order;
 * shared by the graphs of one program and input dims, which run in stream
 * order and so never at once. */
typedef struct kiln_graph_memory {
  size_t references;
  uint64_t session;
  void **blocks;
  int64_t *block_bytes;
  size_t num_blocks, block_capacity;
  uint32_t *allocation_block;
  size_t num_allocations, allocation_capacity;
} kiln_graph_memory;

static void release_memory(kiln_graph_memory *memory) {
  if (!memory || --memory->references > 0)
    return;
  if (memory->blocks && memory->session == kiln_rt_cuda_session())
    for (size_t b = 0; b < memory->num_blocks; ++b)
      kiln_rt_status_free(kiln_rt_cuda_free(memory->blocks[b]));
  free(memory->blocks);
  free(memory->block_bytes);
  free(memory->allocation_block);
  free(memory);
}

struct kiln_rt_program_graph {
  const kiln_rt_program *program;
  uint64_t session;
  kiln_rt_cuda_graph *graph;
  int64_t *input_dims;  /* as captured; the graph holds for these only */
  void **arguments;     /* the buffers the nodes now take */
  unsigned char *baked; /* per argument: a copy or product takes it */
  kiln_graph_memory *memory;
  kiln_graph_launch *launches;
  size_t num_launches, launch_capacity;
  uint64_t *words;
  size_t num_words, word_capacity;
  kiln_graph_ref *refs;
  size_t num_refs, ref_capacity;
  size_t products, recaptures;
  uint64_t collectives, collective_bytes; /* replayed by each launch */
  void **params; /* scratch: a launch's parameter pointers */
  int broken;    /* a failed update left the graph unusable */
};

/* The pass: planning, capturing, or capturing again into an existing
 * graph (its records are checked and refreshed, not added). */
typedef enum { PASS_PLAN, PASS_CAPTURE, PASS_RECAPTURE } kiln_pass_mode;

struct kiln_graph_pass {
  kiln_rt_program_graph *graph;
  kiln_pass_mode mode;
  size_t allocations, launches; /* seen so far in this pass */
  unsigned char *busy;          /* planning: per block */
  size_t busy_capacity;
  uint32_t *slot_block; /* planning: per slot */
};

static kiln_rt_status out_of_memory(void) {
  return kiln_rt_status_make(KILN_RT_OUT_OF_MEMORY, "out of host memory");
}

/* Grows `*array` (of `size` bytes each) to hold `count` items. */
static int reserve(void **array, size_t *capacity, size_t count, size_t size) {
  if (count <= *capacity)
    return 1;
  size_t grown = *capacity ? *capacity * 2 : 16;
  while (grown < count)
    grown *= 2;
  void *bigger = realloc(*array, grown * size);
  if (!bigger)
    return 0;
  *array = bigger;
  *capacity = grown;
  return 1;
}

int kiln_graph_pass_queues(const kiln_graph_pass *pass) {
  return pass->mode != PASS_PLAN;
}

kiln_rt_status kiln_graph_pass_alloc(kiln_graph_pass *pass, int32_t slot,
                                     int64_t bytes, void **address) {
  kiln_rt_program_graph *graph = pass->graph;
  size_t index = pass->allocations++;
  if (pass->mode != PASS_PLAN) {
    if (index >= graph->memory->num_allocations)
      return kiln_rt_status_make(
          KILN_RT_INTERNAL, "a graph capture allocates more than its plan");
    uint32_t block = graph->memory->allocation_block[index];
    if (graph->memory->block_bytes[block] < bytes)
      return kiln_rt_status_make(
          KILN_RT_INTERNAL, "a graph capture allocates more than its plan");
    *address = graph->memory->blocks[block];
    return KILN_RT_SUCCESS;
  }
  /* The smallest free block that fits, else a new one. */
  size_t best = graph->memory->num_blocks;
  for (size_t b = 0; b < graph->memory->num_blocks; ++b)
    if (!pass->busy[b] && graph->memory->block_bytes[b] >= bytes &&
        (best == graph->memory->num_blocks ||
         graph->memory->block_bytes[b] < graph->memory->block_bytes[best]))
      best = b;
  if (best == graph->memory->num_blocks) {
    if (!reserve((void **)&pass->busy, &pass->busy_capacity, best + 1, 1) ||
        !reserve((void **)&graph->memory->block_bytes,
                 &graph->memory->block_capacity, best + 1, sizeof(int64_t)))
      return out_of_memory();
    graph->memory->block_bytes[best] = bytes;
    ++graph->memory->num_blocks;
  }
  if (!reserve((void **)&graph->memory->allocation_block,
               &graph->memory->allocation_capacity, index + 1,
               sizeof(uint32_t)))
    return out_of_memory();
  pass->busy[best] = 1;
  pass->slot_block[slot] = (uint32_t)best;
  graph->memory->allocation_block[index] = (uint32_t)best;
  graph->memory->num_allocations = index + 1;
  *address = NULL; /* planning queues nothing that could use it */
  return KILN_RT_SUCCESS;
}

kiln_rt_status kiln_graph_pass_alloc_arena(kiln_graph_pass *pass, int64_t bytes,
                                           void **address) {
  const kiln_rt_program *program = pass->graph->program;
  return kiln_graph_pass_alloc(
      pass, program->num_slots + (int32_t)program->num_requests + 1, bytes,
      address);
}

void kiln_graph_pass_free(kiln_graph_pass *pass, int32_t slot) {
  if (pass->mode == PASS_PLAN)
    pass->busy[pass->slot_block[slot]] = 0;
}

void kiln_graph_pass_baked(kiln_graph_pass *pass, int32_t slot) {
  if (slot >= 0 && slot < pass->graph->program->num_arguments)
    pass->graph->baked[slot] = 1;
}

void kiln_graph_pass_collective(kiln_graph_pass *pass,
                                const kiln_rt_dist_collective *collective) {
  if (pass->mode != PASS_CAPTURE)
    return;
  ++pass->graph->collectives;
  pass->graph->collective_bytes += kiln_rt_dist_collective_bytes(collective);
}

void kiln_graph_pass_product(kiln_graph_pass *pass,
                             const kiln_view *const *views) {
  for (int i = 0; i < 3; ++i)
    kiln_graph_pass_baked(pass, views[i]->slot);
  if (pass->mode == PASS_CAPTURE)
    ++pass->graph->products;
}

kiln_rt_status kiln_graph_pass_launched(kiln_graph_pass *pass,
                                        const kiln_step *step,
                                        const uint32_t grid[3],
                                        const uint64_t *values, size_t n,
                                        const kiln_view *const *views,
                                        kiln_rt_cuda_stream *stream) {
  kiln_rt_program_graph *graph = pass->graph;
  int32_t arguments = graph->program->num_arguments;
  size_t index = pass->launches++;
  kiln_rt_cuda_graph_node *node = NULL;
  if (pass->mode == PASS_RECAPTURE) {
    /* The same work in the same order: only the words may differ. */
    if (index >= graph->num_launches || graph->launches[index].step != step ||
        graph->launches[index].num_words != n)
      return kiln_rt_status_make(
          KILN_RT_INTERNAL, "a graph's second capture differs from its first");
    kiln_graph_launch *launch = &graph->launches[index];
    memcpy(&graph->words[launch->first_word], values, n * sizeof(uint64_t));
    return KILN_RT_SUCCESS;
  }
  kiln_rt_status status = kiln_rt_cuda_capture_last_node(stream, &node);
  if (status)
    return status;
  if (!reserve((void **)&graph->launches, &graph->launch_capacity, index + 1,
               sizeof(kiln_graph_launch)) ||
      !reserve((void **)&graph->words, &graph->word_capacity,
               graph->num_words + n, sizeof(uint64_t)) ||
      !reserve((void **)&graph->refs, &graph->ref_capacity,
               graph->num_refs + step->num_views, sizeof(kiln_graph_ref)))
    return out_of_memory();
  kiln_graph_launch *launch = &graph->launches[index];
  launch->node = node;
  launch->step = step;
  memcpy(launch->grid, grid, sizeof(launch->grid));
  launch->first_word = graph->num_words;
  launch->num_words = n;
  launch->first_ref = graph->num_refs;
  memcpy(&graph->words[graph->num_words], values, n * sizeof(uint64_t));
  /* Each view's words: allocated and aligned pointers first. */
  size_t word = 0;
  for (uint32_t i = 0; i < step->num_views; ++i) {
    int32_t slot = views[i]->slot;
    if (slot < arguments)
      graph->refs[graph->num_refs++] = (kiln_graph_ref){(uint32_t)word, slot};
    word += 3 + 2 * views[i]->rank;
  }
  launch->num_refs = graph->num_refs - launch->first_ref;
  graph->num_words += n;
  graph->num_launches = index + 1;
  return KILN_RT_SUCCESS;
}

/* A pass of the executor over `graph`'s program on `buffers`; a capture
 * ends in `graph->graph` (PASS_CAPTURE) or in `*recaptured`. A capture
 * runs on this thread's capture stream: it records whatever any thread
 * queues on its stream, and needs no order, as it executes nothing. */
static kiln_rt_status run_pass(kiln_rt_program_graph *graph,
                               kiln_pass_mode mode, void *const *buffers,
                               const int64_t *input_dims,
                               kiln_rt_cuda_graph **recaptured) {
  const kiln_rt_program *program = graph->program;
  kiln_graph_pass pass = {graph, mode, 0, 0, NULL, 0, NULL};
  kiln_rt_cuda_stream *stream = NULL;
  kiln_rt_status status = KILN_RT_SUCCESS;
  if (mode == PASS_PLAN) {
    /* The program's slots, then each collective's staging (and one for
     * those that end where they start), then the arena. */
    pass.slot_block =
        calloc((size_t)program->num_slots + program->num_requests + 2,
               sizeof(uint32_t));
    if (!pass.slot_block)
      return out_of_memory();
  } else {
    status = kiln_rt_cuda_capture_stream(&stream);
    if (!status)
      status = kiln_rt_cuda_capture_begin(stream);
    if (status)
      return status;
  }
  status = kiln_program_execute_cuda(program, buffers,
                                     (size_t)program->num_arguments, input_dims,
                                     stream, NULL, &pass);
  if (!status && pass.allocations != graph->memory->num_allocations)
    status = kiln_rt_status_make(
        KILN_RT_INTERNAL, "a graph capture allocates other than its plan");
  if (!status && mode == PASS_RECAPTURE && pass.launches != graph->num_launches)
    status = kiln_rt_status_make(
        KILN_RT_INTERNAL, "a graph's second capture differs from its first");
  if (mode != PASS_PLAN) {
    kiln_rt_cuda_graph **out =
        mode == PASS_CAPTURE ? &graph->graph : recaptured;
    /* Takes a failure so far, and returns it. */
    status = kiln_rt_cuda_capture_end(stream, status, out);
  }
  free(pass.busy);
  free(pass.slot_block);
  return status;
}

void kiln_rt_program_graph_destroy(kiln_rt_program_graph *graph) {
  if (!graph)
    return;
  kiln_rt_cuda_graph_destroy(graph->graph);
  release_memory(graph->memory);
  free(graph->launches);
  free(graph->words);
  free(graph->refs);
  free(graph->params);
  free(graph->input_dims);
  free(graph->arguments);
  free(graph->baked);
  free(graph);
}

size_t kiln_rt_program_graph_calls(const kiln_rt_program_graph *graph) {
  return graph ? graph->num_launches + graph->products : 0;
}

size_t kiln_rt_program_graph_recaptures(const kiln_rt_program_graph *graph) {
  return graph ? graph->recaptures : 0;
}

/* Plans and allocates `graph`'s own temporaries. */
static kiln_rt_status plan_memory(kiln_rt_program_graph *graph,
                                  void *const *buffers,
                                  const int64_t *input_dims) {
  graph->memory = calloc(1, sizeof(kiln_graph_memory));
  if (!graph->memory)
    return out_of_memory();
  kiln_graph_memory *memory = graph->memory;
  memory->references = 1;
  memory->session = graph->session;
  kiln_rt_status status = run_pass(graph, PASS_PLAN, buffers, input_dims, NULL);
  if (status)
    return status;
  memory->blocks =
      calloc(memory->num_blocks ? memory->num_blocks : 1, sizeof(void *));
  if (!memory->blocks)
    return out_of_memory();
  for (size_t b = 0; b < memory->num_blocks; ++b) {
    status =
        kiln_rt_cuda_malloc((size_t)memory->block_bytes[b], &memory->blocks[b]);
    if (status)
      return status;
  }
  return KILN_RT_SUCCESS;
}

kiln_rt_status kiln_rt_program_graph_launch(kiln_rt_program_graph *graph,
                                            kiln_rt_cuda_stream *stream,
                                            kiln_rt_profile *profile) {
  if (!graph)
    return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT,
                               "kiln_rt_program_graph_launch: graph is NULL");
  if (graph->broken)
    return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT,
                               "the graph failed to update and cannot run");
  const kiln_rt_program *program = graph->program;
  kiln_device_timer timer = {NULL, NULL};
  kiln_rt_dist_nccl_request *watch = NULL;
  kiln_rt_status status = KILN_RT_SUCCESS;
  if (program->has_collectives) {
    /* Its capture checked nothing; the watchdog sees the whole launch. */
    status = kiln_program_collective_check_run(program, graph->input_dims);
    if (status)
      return status;
    status = kiln_rt_dist_nccl_watch_begin(stream, &watch);
    if (status)
      return status;
  }
  if (profile)
    status = kiln_device_timer_start(&timer, stream);
  if (!status)
    status = kiln_rt_cuda_graph_launch(graph->graph, stream);
  if (!status && graph->collectives)
    kiln_rt_dist_count_replayed(graph->collectives, graph->collective_bytes);
  if (watch) {
    char what[96];
    snprintf(what, sizeof(what), "a CUDA graph launch with %llu collective(s)",
             (unsigned long long)graph->collectives);
    kiln_rt_status watched = kiln_rt_dist_nccl_watch_end(watch, stream, what);
    if (!status && watched) {
      kiln_device_timer_release(&timer);
      return watched;
    }
    kiln_rt_status_free(watched); /* the launch's failure comes first */
  }
  if (!status && profile) {
    status = kiln_device_timer_stop(&timer, stream, profile);
    profile->calls += kiln_rt_program_graph_calls(graph);
  }
  kiln_device_timer_release(&timer);
  return status;
}

kiln_rt_status kiln_rt_program_capture_cuda(const kiln_rt_program *program,
                                            void *const *buffers, size_t count,
                                            const int64_t *input_dims,
                                            kiln_rt_program_graph *sibling,
                                            kiln_rt_program_graph **out) {
  kiln_rt_status status = kiln_program_check_loaded_cuda(
      program, buffers, count, "kiln_rt_program_capture_cuda");
  if (status)
    return status;
  if (!out)
    return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT,
                               "kiln_rt_program_capture_cuda: graph is NULL");
  if (sibling && (sibling->program != program ||
                  sibling->session != program->cuda_session ||
                  (program->num_dynamic_dims &&
                   (!input_dims || !sibling->input_dims ||
                    memcmp(input_dims, sibling->input_dims,
                           program->num_input_dims * sizeof(int64_t))))))
    return kiln_rt_status_make(
        KILN_RT_INVALID_ARGUMENT,
        "kiln_rt_program_capture_cuda: the sibling graph is "
        "of another program, session or input dims");
  kiln_rt_program_graph *graph = calloc(1, sizeof(*graph));
  if (!graph)
    return out_of_memory();
  graph->program = program;
  graph->session = program->cuda_session;
  size_t arguments = count ? count : 1;
  graph->arguments = malloc(arguments * sizeof(void *));
  graph->baked = calloc(arguments, 1);
  graph->params = malloc((program->max_launch_words + 1) * sizeof(void *));
  if (program->num_dynamic_dims && input_dims) {
    graph->input_dims = malloc(program->num_input_dims * sizeof(int64_t));
    if (graph->input_dims)
      memcpy(graph->input_dims, input_dims,
             program->num_input_dims * sizeof(int64_t));
  }
  if (!graph->arguments || !graph->baked || !graph->params ||
      (program->num_dynamic_dims && input_dims && !graph->input_dims)) {
    kiln_rt_program_graph_destroy(graph);
    return out_of_memory();
  }
  if (count)
    memcpy(graph->arguments, buffers, count * sizeof(void *));
  if (sibling) {
    graph->memory = sibling->memory;
    ++graph->memory->references;
  } else {
    status = plan_memory(graph, buffers, input_dims);
  }
  if (!status)
    status = run_pass(graph, PASS_CAPTURE, buffers, input_dims, NULL);
  if (status) {
    kiln_rt_program_graph_destroy(graph);
    return status;
  }
  *out = graph;
  return KILN_RT_SUCCESS;
}

size_t kiln_rt_program_graph_moved(const kiln_rt_program_graph *graph,
                                   void *const *buffers, size_t count) {
  if (!graph || count != (size_t)graph->program->num_arguments)
    return SIZE_MAX;
  size_t moved = 0;
  for (size_t i = 0; i < count; ++i)
    if (buffers[i] != graph->arguments[i]) {
      if (graph->baked[i])
        return SIZE_MAX;
      ++moved;
    }
  return moved;
}

/* Gives the kernel nodes that take a moved buffer their new parameters. */
static kiln_rt_status update_nodes(kiln_rt_program_graph *graph,
                                   void *const *buffers) {
  const kiln_rt_program *program = graph->program;
  for (size_t l = 0; l < graph->num_launches; ++l) {
    kiln_graph_launch *launch = &graph->launches[l];
    uint64_t *words = &graph->words[launch->first_word];
    int moved = 0;
    for (size_t r = 0; r < launch->num_refs; ++r) {
      const kiln_graph_ref *ref = &graph->refs[launch->first_ref + r];
      uint64_t address = (uint64_t)(uintptr_t)buffers[ref->argument];
      if (words[ref->word] != address) {
        words[ref->word] = words[ref->word + 1] = address;
        moved = 1;
      }
    }
    if (!moved)
      continue;
    for (size_t w = 0; w < launch->num_words; ++w)
      graph->params[w] = &words[w];
    kiln_rt_status status = kiln_rt_cuda_graph_set_kernel_params(
        graph->graph, launch->node,
        program->cuda_functions[launch->step->callee], launch->grid,
        launch->step->block, graph->params);
    if (status)
      return status;
  }
  return KILN_RT_SUCCESS;
}

kiln_rt_status kiln_rt_program_graph_prepare(kiln_rt_program_graph *graph,
                                             void *const *buffers, size_t count,
                                             const int64_t *input_dims) {
  if (!graph)
    return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT,
                               "kiln_rt_program_graph_prepare: graph is NULL");
  const kiln_rt_program *program = graph->program;
  kiln_rt_status status = kiln_program_check_loaded_cuda(
      program, buffers, count, "kiln_rt_program_graph_prepare");
  if (status)
    return status;
  if (graph->session != program->cuda_session)
    return kiln_rt_status_make(
        KILN_RT_INVALID_ARGUMENT,
        "the graph was captured in an earlier session of the "
        "CUDA runtime");
  if (graph->broken)
    return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT,
                               "the graph failed to update and cannot run");
  if (program->num_dynamic_dims &&
      (!input_dims || !graph->input_dims ||
       memcmp(input_dims, graph->input_dims,
              program->num_input_dims * sizeof(int64_t))))
    return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT,
                               "the graph was captured for other input dims");
  if (kiln_rt_program_graph_moved(graph, buffers, count) == SIZE_MAX) {
    kiln_rt_cuda_graph *recaptured = NULL;
    status = run_pass(graph, PASS_RECAPTURE, buffers, input_dims, &recaptured);
    if (status) {
      /* The records may hold the half-captured words. */
      graph->broken = 1;
      return status;
    }
    status = kiln_rt_cuda_graph_update(graph->graph, recaptured);
    if (status) {
      graph->broken = 1;
      return status;
    }
    ++graph->recaptures;
  } else {
    status = update_nodes(graph, buffers);
    if (status) {
      graph->broken = 1;
      return status;
    }
  }
  if (count)
    memcpy(graph->arguments, buffers, count * sizeof(void *));
  return KILN_RT_SUCCESS;
}

kiln_rt_status kiln_rt_program_graph_run(kiln_rt_program_graph *graph,
                                         void *const *buffers, size_t count,
                                         const int64_t *input_dims,
                                         kiln_rt_cuda_stream *stream,
                                         kiln_rt_profile *profile) {
  kiln_rt_status status =
      kiln_rt_program_graph_prepare(graph, buffers, count, input_dims);
  return status ? status : kiln_rt_program_graph_launch(graph, stream, profile);
}
