/*===- attention.c - attention without its scores, on the CPU -------------===*
 *
 * The forward takes a block of BQ query rows against BK keys at a time:
 * S = Q Kᵀ (a GEMM into a BQ x BK buffer), the score rewrites, then the
 * online softmax: each row's running maximum m and sum l, and its output
 * accumulated as acc · e^(m_old - m_new) + P V. The backward recomputes
 * P = exp(s' - m) / l for a strip of BQ query rows over all keys (BQ x Tk
 * per thread, never the whole [Tq, Tk]), with s' the rewritten scores and
 * t their derivative:
 *   dV += Pᵀ dO,  dP = dO Vᵀ,  dS = P (dP - rowsum(P dP)) t,
 *   dQ = dS K,    dK += dSᵀ Q.
 * rowsum(P dP) rather than FlashAttention's rowsum(dO O): the same sum as
 * the unfused softmax's backward, so gradients that are zero in exact
 * arithmetic (a bias on the keys) stay as close to zero. Parallel over
 * (batch, query block) forward and over the batch backward, whose strips
 * all add into one dK and dV.
 *
 * NaN and infinities follow the unfused softmax: a row whose scores are all
 * -inf gives NaN; a block of -inf before any finite score adds nothing.
 *
 *===----------------------------------------------------------------------===*/

#include "cpu_work.h"
#include "kiln_rt/kiln_rt_attention.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { BLOCK_Q = 64, BLOCK_K = 128, MAX_SCORE_OPERANDS = 4 };

/* The elementwise loops in the widest vectors the CPU has (the runtime is
 * built for any x86-64; the compiled kernels are built for this CPU). */
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#define KILN_VECTOR_CLONES                                                     \
  __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define KILN_VECTOR_CLONES
#endif

enum {
  STEP_MUL = 0,
  STEP_DIV = 1,
  STEP_ADD = 2,
  STEP_SUB = 3,
  STEP_SUB_FROM = 4,
  STEP_KEEP = 5,
  STEP_FILL = 6,
  STEP_NEG = 7,
};

/* A score operand read broadcast: stride 0 along a unit dim. */
typedef struct score_operand {
  const float *data;
  int64_t stride[3];
} score_operand;

/* A rank-3 or rank-2 view: base pointer and strides. */
typedef struct view3 {
  float *data;
  int64_t s0, s1, s2;
} view3;

typedef struct problem {
  view3 q, k, v, o, m, l, dout, dq, dk, dv;
  score_operand x[MAX_SCORE_OPERANDS];
  const int64_t *steps; /* triples */
  int64_t num_steps;
  int64_t n, tq, tk, d, dv_width;
} problem;

static view3 view_of3(const kiln_rt_memref3d_f32 *m) {
  view3 v = {m->aligned + m->offset, m->strides[0], m->strides[1],
             m->strides[2]};
  return v;
}

static view3 view_of2(const kiln_rt_memref2d_f32 *m) {
  view3 v = {m->aligned + m->offset, m->strides[0], m->strides[1], 0};
  return v;
}

static score_operand operand_of(const kiln_rt_memref3d_f32 *m) {
  score_operand x = {m->aligned + m->offset, {0, 0, 0}};
  for (int d = 0; d < 3; ++d)
    x.stride[d] = m->sizes[d] == 1 ? 0 : m->strides[d];
  return x;
}

/* Reads the rewrites (a contiguous constant, ended by kind -1); 0 when one
 * names a kind or an operand that does not exist. */
static int read_steps(problem *p, const kiln_rt_memref1d_i64 *steps) {
  p->steps = steps->aligned + steps->offset;
  p->num_steps = 0;
  for (;; ++p->num_steps) {
    if (3 * p->num_steps >= steps->sizes[0])
      return 0;
    const int64_t *step = p->steps + 3 * p->num_steps;
    if (step[0] == -1)
      return 1;
    if (3 * p->num_steps + 2 >= steps->sizes[0] || step[0] < 0 ||
        step[0] > STEP_NEG)
      return 0;
    int uses_a = step[0] != STEP_NEG;
    int uses_b = step[0] == STEP_KEEP || step[0] == STEP_FILL;
    if ((uses_a && (step[1] < 0 || step[1] >= MAX_SCORE_OPERANDS)) ||
        (uses_b && (step[2] < 0 || step[2] >= MAX_SCORE_OPERANDS)))
      return 0;
  }
}

/* Every element of `v` (sizes[0] x sizes[1] x sizes[2]) set to NaN. */
static void fill_nan(const kiln_rt_memref3d_f32 *v) {
  for (int64_t a = 0; a < v->sizes[0]; ++a)
    for (int64_t b = 0; b < v->sizes[1]; ++b)
      for (int64_t c = 0; c < v->sizes[2]; ++c)
        v->aligned[v->offset + a * v->strides[0] + b * v->strides[1] +
                   c * v->strides[2]] = NAN;
}

/* Row i of score operand `x` at batch n, keys j0 to j0 + cols (at most
 * BLOCK_K), as a contiguous array: itself when it is one, else copied (a
 * broadcast splatted) into `buffer`, so that the rewrites' loops vectorize. */
static const float *operand_row(const score_operand *x, int64_t n, int64_t i,
                                int64_t j0, int64_t cols, float *buffer) {
  const float *row =
      x->data + n * x->stride[0] + i * x->stride[1] + j0 * x->stride[2];
  int64_t stride = x->stride[2];
  if (stride == 1)
    return row;
  for (int64_t c = 0; c < cols; ++c)
    buffer[c] = row[c * stride];
  return buffer;
}

/* The score rewrites on s (rows x cols, lead ld) at batch n, query row i0
 * and key j0; with t, also their derivative (t starts at 1). */
KILN_VECTOR_CLONES
static void rewrite_scores(const problem *p, int64_t n, int64_t i0,
                           int64_t rows, int64_t j0, int64_t cols, float *s,
                           float *t, int64_t ld) {
  if (t)
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c)
        t[r * ld + c] = 1.0f;
  for (int64_t step = 0; step < p->num_steps; ++step) {
    int64_t kind = p->steps[3 * step];
    if (kind == STEP_NEG) {
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c) {
          s[r * ld + c] = -s[r * ld + c];
          if (t)
            t[r * ld + c] = -t[r * ld + c];
        }
      continue;
    }
    /* Operand b is read by keep and fill only; a by every other kind. */
    int64_t a_index = p->steps[3 * step + 1], b_index = p->steps[3 * step + 2];
    const score_operand *a = &p->x[a_index];
    const score_operand *b = &p->x[b_index >= 0 ? b_index : a_index];
    float a_row[BLOCK_K], b_row[BLOCK_K];
    for (int64_t r = 0; r < rows; ++r) {
      const float *ar = operand_row(a, n, i0 + r, j0, cols, a_row);
      const float *br =
          b == a ? ar : operand_row(b, n, i0 + r, j0, cols, b_row);
      float *sr = s + r * ld, *tr = t ? t + r * ld : NULL;
      /* One loop per kind, so that each vectorizes. */
      switch (kind) {
      case STEP_MUL:
        for (int64_t c = 0; c < cols; ++c)
          sr[c] *= ar[c];
        if (tr)
          for (int64_t c = 0; c < cols; ++c)
            tr[c] *= ar[c];
        break;
      case STEP_DIV:
        for (int64_t c = 0; c < cols; ++c)
          sr[c] /= ar[c];
        if (tr)
          for (int64_t c = 0; c < cols; ++c)
            tr[c] /= ar[c];
        break;
      case STEP_ADD:
        for (int64_t c = 0; c < cols; ++c)
          sr[c] += ar[c];
        break;
      case STEP_SUB:
        for (int64_t c = 0; c < cols; ++c)
          sr[c] -= ar[c];
        break;
      case STEP_SUB_FROM:
        for (int64_t c = 0; c < cols; ++c)
          sr[c] = ar[c] - sr[c];
        if (tr)
          for (int64_t c = 0; c < cols; ++c)
            tr[c] = -tr[c];
        break;
      case STEP_KEEP:
      case STEP_FILL: {
        /* keep: the score where the mask is set; fill: where it is not. */
        float keep_when = kind == STEP_KEEP ? 1.0f : 0.0f;
        for (int64_t c = 0; c < cols; ++c) {
          int kept = (ar[c] != 0.0f) == (keep_when != 0.0f);
          sr[c] = kept ? sr[c] : br[c];
        }
        if (tr)
          for (int64_t c = 0; c < cols; ++c) {
            int kept = (ar[c] != 0.0f) == (keep_when != 0.0f);
            tr[c] = kept ? tr[c] : 0.0f;
          }
        break;
      }
      default:
        break;
      }
    }
  }
}

/* e^x in f32 to within 2 ulp, as a polynomial the compiler vectorizes (libm's
 * expf, one call per score, took most of the kernels' time): x = n ln 2 + r,
 * |r| <= ln 2 / 2, e^r by its degree-6 Taylor polynomial, 2^n in the
 * exponent bits. -inf and anything below the smallest normal give 0, +inf
 * and overflow inf, NaN itself. */
static inline float exp_f32(float x) {
  float clamped = x < -87.3f ? -87.3f : (x > 88.7f ? 88.7f : x);
  /* Round to nearest by the 1.5 * 2^23 trick: SSE2 has no floor, and a
   * call would keep the loop scalar. */
  float n = (clamped * 1.44269504f + 12582912.0f) - 12582912.0f;
  float r = clamped - n * 0.693359375f;
  r = r + n * 2.12194440e-4f;
  float p = 1.0f / 720.0f;
  p = p * r + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  union {
    int32_t i;
    float f;
  } scale;
  scale.i = ((int32_t)n + 127) << 23;
  float y = p * scale.f;
  y = x < -87.3f ? 0.0f : y;
  y = x > 88.7f ? INFINITY : y;
  return x != x ? x : y;
}

/* The larger, NaN winning (kiln.reduce_max's rule). */
static float maximum(float a, float b) {
  if (isnan(a) || isnan(b))
    return NAN;
  return a > b ? a : b;
}

KILN_VECTOR_CLONES
static void forward_blocks(void *context, int64_t begin, int64_t end) {
  const problem *p = (const problem *)context;
  int64_t q_blocks = (p->tq + BLOCK_Q - 1) / BLOCK_Q;
  float *s = malloc(sizeof(float) * BLOCK_Q * BLOCK_K);
  float *acc =
      malloc(sizeof(float) * BLOCK_Q * (p->dv_width ? p->dv_width : 1));
  float row_max[BLOCK_Q], row_sum[BLOCK_Q];
  if (!s || !acc) {
    /* No memory for a block: the results are NaN, never stale. */
    for (int64_t task = begin; task < end; ++task) {
      int64_t n = task / q_blocks, i0 = (task % q_blocks) * BLOCK_Q;
      int64_t rows = p->tq - i0 < BLOCK_Q ? p->tq - i0 : BLOCK_Q;
      for (int64_t r = 0; r < rows; ++r) {
        for (int64_t e = 0; e < p->dv_width; ++e)
          p->o.data[n * p->o.s0 + (i0 + r) * p->o.s1 + e * p->o.s2] = NAN;
        p->m.data[n * p->m.s0 + (i0 + r) * p->m.s1] = NAN;
        p->l.data[n * p->l.s0 + (i0 + r) * p->l.s1] = NAN;
      }
    }
    free(s);
    free(acc);
    return;
  }
  for (int64_t task = begin; task < end; ++task) {
    int64_t n = task / q_blocks, i0 = (task % q_blocks) * BLOCK_Q;
    int64_t rows = p->tq - i0 < BLOCK_Q ? p->tq - i0 : BLOCK_Q;
    for (int64_t r = 0; r < rows; ++r) {
      row_max[r] = -INFINITY;
      row_sum[r] = 0.0f;
    }
    memset(acc, 0, sizeof(float) * rows * p->dv_width);
    const float *q = p->q.data + n * p->q.s0 + i0 * p->q.s1;
    for (int64_t j0 = 0; j0 < p->tk; j0 += BLOCK_K) {
      int64_t cols = p->tk - j0 < BLOCK_K ? p->tk - j0 : BLOCK_K;
      const float *k = p->k.data + n * p->k.s0 + j0 * p->k.s1;
      kiln_cpu_gemm_f32(0, 1, rows, cols, p->d, q, p->q.s1, p->q.s2, k, p->k.s1,
                        p->k.s2, s, BLOCK_K, 1, 0);
      rewrite_scores(p, n, i0, rows, j0, cols, s, NULL, BLOCK_K);
      for (int64_t r = 0; r < rows; ++r) {
        float *sr = s + r * BLOCK_K;
        /* Branch-free loops, eight lanes of partial results, so that they
         * vectorize; a NaN wins the maximum (kiln.reduce_max's rule). */
        float lanes[8];
        int nan = 0;
        for (int l = 0; l < 8; ++l)
          lanes[l] = -INFINITY;
        for (int64_t c = 0; c < cols; ++c) {
          float x = sr[c];
          nan |= x != x;
          lanes[c & 7] = x > lanes[c & 7] ? x : lanes[c & 7];
        }
        float block_max = nan ? NAN : lanes[0];
        for (int l = 1; l < 8; ++l)
          block_max = maximum(block_max, lanes[l]);
        float new_max = maximum(row_max[r], block_max);
        /* All -inf so far: nothing to add, and no inf - inf. */
        float shift = new_max == -INFINITY ? 0.0f : new_max;
        float correction = exp_f32(row_max[r] - shift);
        for (int64_t c = 0; c < cols; ++c)
          sr[c] = exp_f32(sr[c] - shift);
        for (int l = 0; l < 8; ++l)
          lanes[l] = 0.0f;
        for (int64_t c = 0; c < cols; ++c)
          lanes[c & 7] += sr[c];
        float sum = 0.0f;
        for (int l = 0; l < 8; ++l)
          sum += lanes[l];
        row_sum[r] = row_sum[r] * correction + sum;
        row_max[r] = new_max;
        if (correction != 1.0f) {
          float *ar = acc + r * p->dv_width;
          for (int64_t e = 0; e < p->dv_width; ++e)
            ar[e] *= correction;
        }
      }
      const float *v = p->v.data + n * p->v.s0 + j0 * p->v.s1;
      kiln_cpu_gemm_f32(0, 0, rows, p->dv_width, cols, s, BLOCK_K, 1, v,
                        p->v.s1, p->v.s2, acc, p->dv_width, 1, 1);
    }
    for (int64_t r = 0; r < rows; ++r) {
      float *o = p->o.data + n * p->o.s0 + (i0 + r) * p->o.s1;
      const float *ar = acc + r * p->dv_width;
      for (int64_t e = 0; e < p->dv_width; ++e)
        o[e * p->o.s2] = ar[e] / row_sum[r];
      p->m.data[n * p->m.s0 + (i0 + r) * p->m.s1] = row_max[r];
      p->l.data[n * p->l.s0 + (i0 + r) * p->l.s1] = row_sum[r];
    }
  }
  free(s);
  free(acc);
}

/* The operands both kernels share; 0 when the steps are malformed. */
static int set_up(problem *p, const kiln_rt_memref3d_f32 *q,
                  const kiln_rt_memref3d_f32 *k, const kiln_rt_memref3d_f32 *v,
                  const kiln_rt_memref3d_f32 *result,
                  const kiln_rt_memref2d_f32 *row_max,
                  const kiln_rt_memref2d_f32 *row_sum,
                  kiln_rt_memref3d_f32 *const x[MAX_SCORE_OPERANDS],
                  const kiln_rt_memref1d_i64 *steps) {
  memset(p, 0, sizeof(*p));
  p->q = view_of3(q);
  p->k = view_of3(k);
  p->v = view_of3(v);
  p->o = view_of3(result);
  p->m = view_of2(row_max);
  p->l = view_of2(row_sum);
  for (int i = 0; i < MAX_SCORE_OPERANDS; ++i)
    p->x[i] = operand_of(x[i]);
  p->n = q->sizes[0];
  p->tq = q->sizes[1];
  p->d = q->sizes[2];
  p->tk = k->sizes[1];
  p->dv_width = v->sizes[2];
  return read_steps(p, steps);
}

void _mlir_ciface_kiln_rt_attention_f32(
    kiln_rt_memref3d_f32 *q, kiln_rt_memref3d_f32 *k, kiln_rt_memref3d_f32 *v,
    kiln_rt_memref3d_f32 *x0, kiln_rt_memref3d_f32 *x1,
    kiln_rt_memref3d_f32 *x2, kiln_rt_memref3d_f32 *x3,
    kiln_rt_memref1d_i64 *steps, kiln_rt_memref3d_f32 *result,
    kiln_rt_memref2d_f32 *row_max, kiln_rt_memref2d_f32 *row_sum) {
  problem p;
  kiln_rt_memref3d_f32 *const x[MAX_SCORE_OPERANDS] = {x0, x1, x2, x3};
  if (!set_up(&p, q, k, v, result, row_max, row_sum, x, steps)) {
    fill_nan(result);
    return;
  }
  int64_t q_blocks = (p.tq + BLOCK_Q - 1) / BLOCK_Q;
  kiln_cpu_parallel_for(p.n * q_blocks, forward_blocks, &p);
}

KILN_VECTOR_CLONES
static void backward_batches(void *context, int64_t begin, int64_t end) {
  const problem *p = (const problem *)context;
  /* One strip of BLOCK_Q rows over every key: P, dP (then dS) and the
   * rewrites' derivative t. */
  size_t strip = sizeof(float) * BLOCK_Q * (size_t)(p->tk ? p->tk : 1);
  float *prob = malloc(strip), *dprob = malloc(strip), *t = malloc(strip);
  int64_t ld = p->tk;
  for (int64_t n = begin; n < end; ++n) {
    float *dq = p->dq.data + n * p->dq.s0, *dk = p->dk.data + n * p->dk.s0,
          *dv = p->dv.data + n * p->dv.s0;
    if (!prob || !dprob || !t) {
      /* No memory for a strip: NaN gradients, never stale ones. */
      for (int64_t i = 0; i < p->tq; ++i)
        for (int64_t e = 0; e < p->d; ++e)
          dq[i * p->dq.s1 + e * p->dq.s2] = NAN;
      for (int64_t j = 0; j < p->tk; ++j) {
        for (int64_t e = 0; e < p->d; ++e)
          dk[j * p->dk.s1 + e * p->dk.s2] = NAN;
        for (int64_t e = 0; e < p->dv_width; ++e)
          dv[j * p->dv.s1 + e * p->dv.s2] = NAN;
      }
      continue;
    }
    for (int64_t j = 0; j < p->tk; ++j) {
      for (int64_t e = 0; e < p->d; ++e)
        dk[j * p->dk.s1 + e * p->dk.s2] = 0.0f;
      for (int64_t e = 0; e < p->dv_width; ++e)
        dv[j * p->dv.s1 + e * p->dv.s2] = 0.0f;
    }
    const float *q = p->q.data + n * p->q.s0, *k = p->k.data + n * p->k.s0,
                *v = p->v.data + n * p->v.s0,
                *dout = p->dout.data + n * p->dout.s0;
    for (int64_t i0 = 0; i0 < p->tq; i0 += BLOCK_Q) {
      int64_t rows = p->tq - i0 < BLOCK_Q ? p->tq - i0 : BLOCK_Q;
      const float *qb = q + i0 * p->q.s1, *db = dout + i0 * p->dout.s1;
      /* P = exp(s' - m) / l and dP = dO Vᵀ over the strip, a key block at
       * a time. */
      for (int64_t j0 = 0; j0 < p->tk; j0 += BLOCK_K) {
        int64_t cols = p->tk - j0 < BLOCK_K ? p->tk - j0 : BLOCK_K;
        kiln_cpu_gemm_f32(0, 1, rows, cols, p->d, qb, p->q.s1, p->q.s2,
                          k + j0 * p->k.s1, p->k.s1, p->k.s2, prob + j0, ld, 1,
                          0);
        rewrite_scores(p, n, i0, rows, j0, cols, prob + j0, t + j0, ld);
      }
      for (int64_t r = 0; r < rows; ++r) {
        float m = p->m.data[n * p->m.s0 + (i0 + r) * p->m.s1];
        float l = p->l.data[n * p->l.s0 + (i0 + r) * p->l.s1];
        float *pr = prob + r * ld;
        for (int64_t c = 0; c < p->tk; ++c)
          pr[c] = exp_f32(pr[c] - m) / l;
      }
      kiln_cpu_gemm_f32(0, 1, rows, p->tk, p->dv_width, db, p->dout.s1,
                        p->dout.s2, v, p->v.s1, p->v.s2, dprob, ld, 1, 0);
      /* dV += Pᵀ dO. */
      kiln_cpu_gemm_f32(1, 0, p->tk, p->dv_width, rows, prob, ld, 1, db,
                        p->dout.s1, p->dout.s2, dv, p->dv.s1, p->dv.s2, 1);
      /* dS = P (dP - rowsum(P dP)) t: the row sum over the same P and dP
       * as the unfused softmax's backward, so that each row of dS sums to
       * zero as closely as there. */
      for (int64_t r = 0; r < rows; ++r) {
        const float *pr = prob + r * ld, *tr = t + r * ld;
        float *dr = dprob + r * ld;
        float delta = 0.0f;
        for (int64_t c = 0; c < p->tk; ++c)
          delta += pr[c] * dr[c];
        for (int64_t c = 0; c < p->tk; ++c)
          dr[c] = pr[c] * (dr[c] - delta) * tr[c];
      }
      /* dQ = dS K (this block's rows, written once); dK += dSᵀ Q. */
      kiln_cpu_gemm_f32(0, 0, rows, p->d, p->tk, dprob, ld, 1, k, p->k.s1,
                        p->k.s2, dq + i0 * p->dq.s1, p->dq.s1, p->dq.s2, 0);
      kiln_cpu_gemm_f32(1, 0, p->tk, p->d, rows, dprob, ld, 1, qb, p->q.s1,
                        p->q.s2, dk, p->dk.s1, p->dk.s2, 1);
    }
  }
  free(prob);
  free(dprob);
  free(t);
}

void _mlir_ciface_kiln_rt_attention_grad_f32(
    kiln_rt_memref3d_f32 *q, kiln_rt_memref3d_f32 *k, kiln_rt_memref3d_f32 *v,
    kiln_rt_memref3d_f32 *result, kiln_rt_memref2d_f32 *row_max,
    kiln_rt_memref2d_f32 *row_sum, kiln_rt_memref3d_f32 *result_grad,
    kiln_rt_memref3d_f32 *x0, kiln_rt_memref3d_f32 *x1,
    kiln_rt_memref3d_f32 *x2, kiln_rt_memref3d_f32 *x3,
    kiln_rt_memref1d_i64 *steps, kiln_rt_memref3d_f32 *query_grad,
    kiln_rt_memref3d_f32 *key_grad, kiln_rt_memref3d_f32 *value_grad) {
  problem p;
  kiln_rt_memref3d_f32 *const x[MAX_SCORE_OPERANDS] = {x0, x1, x2, x3};
  int valid = set_up(&p, q, k, v, result, row_max, row_sum, x, steps);
  if (!valid) {
    fill_nan(query_grad);
    fill_nan(key_grad);
    fill_nan(value_grad);
    return;
  }
  p.dout = view_of3(result_grad);
  p.dq = view_of3(query_grad);
  p.dk = view_of3(key_grad);
  p.dv = view_of3(value_grad);
  kiln_cpu_parallel_for(p.n, backward_batches, &p);
}
