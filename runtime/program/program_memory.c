/*===- program_memory.c - a host program's memory plan --------------------===*
 *
 * The buffers a program allocates with sizes it knows share one arena per
 * run. Each allocation is live from its alloc step to its free step (or the
 * end); two that are live at once never overlap. Offsets come from the
 * greedy-by-size heuristic (as TFLite's arena planner): the largest buffer
 * first, each at the lowest offset clear of every placed buffer live with
 * it. The plan is made once, when the program is read, and is the same
 * for every run: no allocator call per buffer, and a peak known before the
 * program runs.
 *
 *===----------------------------------------------------------------------===*/

#include "../common/status.h"
#include "program_internal.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* Buffers start on cache lines, as the buffer cache's do. */
#define KILN_ARENA_ALIGNMENT 64

typedef struct interval {
  int64_t bytes, offset;
  size_t first, last; /* the alloc step, the free step (or num_steps) */
} interval;

static int by_size(const void *a, const void *b) {
  const interval *x = *(const interval *const *)a;
  const interval *y = *(const interval *const *)b;
  if (x->bytes != y->bytes)
    return x->bytes > y->bytes ? -1 : 1;
  /* Program order among equals: the plan never depends on qsort. */
  return x->first < y->first ? -1 : x->first > y->first;
}

/* `bytes` rounded up to the arena's alignment (at least one unit, so that
 * every buffer has an address of its own); -1 on overflow. */
static int64_t arena_size(int64_t bytes) {
  int64_t rounded;
  if (__builtin_add_overflow(bytes, KILN_ARENA_ALIGNMENT - 1, &rounded))
    return -1;
  rounded &= ~(int64_t)(KILN_ARENA_ALIGNMENT - 1);
  return rounded ? rounded : KILN_ARENA_ALIGNMENT;
}

/* The most bytes of `intervals` live at one step. */
static int64_t live_peak(const interval *intervals, size_t n, size_t steps) {
  int64_t *delta = calloc(steps + 2, sizeof(int64_t));
  if (!delta)
    return -1;
  for (size_t i = 0; i < n; ++i) {
    delta[intervals[i].first] += intervals[i].bytes;
    delta[intervals[i].last + 1] -= intervals[i].bytes;
  }
  int64_t live = 0, peak = 0;
  for (size_t s = 0; s <= steps; ++s) {
    live += delta[s];
    peak = live > peak ? live : peak;
  }
  free(delta);
  return peak;
}

kiln_rt_status kiln_program_plan_memory(kiln_rt_program *p) {
  kiln_rt_memory_plan *plan = &p->memory_plan;
  memset(plan, 0, sizeof(*plan));
  p->alloc_offsets =
      malloc((p->num_steps ? p->num_steps : 1) * sizeof(int64_t));
  interval *intervals =
      malloc((p->num_steps ? p->num_steps : 1) * sizeof(interval));
  interval **order =
      malloc((p->num_steps ? p->num_steps : 1) * sizeof(interval *));
  interval **placed =
      malloc((p->num_steps ? p->num_steps : 1) * sizeof(interval *));
  /* The interval a slot's live buffer opened, if planned. */
  int64_t *open = malloc(((size_t)p->num_slots + 1) * sizeof(int64_t));
  kiln_rt_status status = KILN_RT_SUCCESS;
  if (!p->alloc_offsets || !intervals || !order || !placed || !open) {
    status = kiln_rt_status_make(KILN_RT_OUT_OF_MEMORY, "out of host memory");
    goto done;
  }
  for (int32_t i = 0; i < p->num_slots; ++i)
    open[i] = -1;
  size_t n = 0;
  for (size_t s = 0; s < p->num_steps; ++s) {
    const kiln_step *step = &p->steps[s];
    p->alloc_offsets[s] = -1;
    if (step->kind == KILN_STEP_ALLOC) {
      /* A size the program computes at run time comes from the buffer
       * cache. */
      int64_t bytes = step->bytes >= 0 ? arena_size(step->bytes) : -1;
      open[step->slot] = bytes >= 0 ? (int64_t)n : -1;
      if (bytes < 0) {
        ++plan->unplanned_buffers;
        continue;
      }
      /* Offsets stay below the sum of the sizes: check it once. */
      if (__builtin_add_overflow(plan->buffer_bytes, bytes,
                                 &plan->buffer_bytes)) {
        status = kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT,
                                     "corrupt host program: its buffers "
                                     "overflow 64 bits");
        goto done;
      }
      intervals[n] = (interval){bytes, -1, s, p->num_steps};
      ++n;
    } else if (step->kind == KILN_STEP_FREE && open[step->slot] >= 0) {
      intervals[open[step->slot]].last = s;
      open[step->slot] = -1;
    }
  }
  for (size_t i = 0; i < n; ++i)
    order[i] = &intervals[i];
  qsort(order, n, sizeof(interval *), by_size);
  /* `placed` stays sorted by offset. */
  size_t num_placed = 0;
  int64_t arena = 0;
  for (size_t i = 0; i < n; ++i) {
    interval *next = order[i];
    int64_t offset = 0;
    for (size_t j = 0; j < num_placed; ++j) {
      const interval *other = placed[j];
      if (other->first > next->last || next->first > other->last)
        continue; /* never live at once */
      if (other->offset >= offset + next->bytes)
        break; /* the gap below `other` fits */
      int64_t end = other->offset + other->bytes;
      offset = end > offset ? end : offset;
    }
    /* Insert after the buffers below `offset`, keeping offset order. */
    size_t at = 0;
    while (at < num_placed && placed[at]->offset <= offset)
      ++at;
    memmove(&placed[at + 1], &placed[at],
            (num_placed - at) * sizeof(interval *));
    placed[at] = next;
    ++num_placed;
    next->offset = offset;
    arena = offset + next->bytes > arena ? offset + next->bytes : arena;
  }
  for (size_t i = 0; i < n; ++i)
    p->alloc_offsets[intervals[i].first] = intervals[i].offset;
  plan->arena_bytes = arena;
  plan->planned_buffers = (int64_t)n;
  plan->live_peak_bytes = live_peak(intervals, n, p->num_steps);
  if (plan->live_peak_bytes < 0)
    status = kiln_rt_status_make(KILN_RT_OUT_OF_MEMORY, "out of host memory");
done:
  free(intervals);
  free(order);
  free(placed);
  free(open);
  return status;
}

void kiln_rt_program_get_memory_plan(const kiln_rt_program *program,
                                     kiln_rt_memory_plan *plan) {
  if (!plan)
    return;
  if (!program) {
    memset(plan, 0, sizeof(*plan));
    return;
  }
  *plan = program->memory_plan;
}

/* -1 until read from KILN_POISON_BUFFERS or set. */
static _Atomic int poisons = -1;

void kiln_rt_set_buffer_poisoning(int on) { atomic_store(&poisons, on != 0); }

int kiln_program_poisons_buffers(void) {
  int value = atomic_load(&poisons);
  if (value < 0) {
    const char *setting = getenv("KILN_POISON_BUFFERS");
    value = setting && *setting && strcmp(setting, "0") != 0;
    atomic_store(&poisons, value);
  }
  return value;
}

void kiln_arena_take(char *address, int64_t bytes) {
  KILN_ASAN_UNPOISON(address, bytes);
  if (kiln_program_poisons_buffers())
    memset(address, 0xFF, (size_t)bytes);
}

void kiln_arena_give_back(char *address, int64_t bytes) {
  if (kiln_program_poisons_buffers())
    memset(address, 0xFF, (size_t)bytes);
  KILN_ASAN_POISON(address, bytes);
}
