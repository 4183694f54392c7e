//===- BlasTest.cpp - the runtime's matrix products -----------------------===//
//
// Every transpose combination, rank 2, 3 and 4, row-major and transposed views
// (which reach the BLAS) and odd strides (which take the plain loop), all
// against a direct triple loop. C accumulates: the entry points add.
//
//===----------------------------------------------------------------------===//

#include "kiln_rt/kiln_rt_blas.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <random>
#include <string>
#include <vector>

namespace {

struct Matrix {
  std::vector<float> storage;
  kiln_rt_memref2d_f32 desc;
};

/// A rows x cols matrix whose element (i, j) lives at offset + i*s0 + j*s1.
Matrix makeMatrix(int64_t rows, int64_t cols, int64_t s0, int64_t s1,
                  int64_t offset, std::mt19937 &rng) {
  Matrix m;
  m.storage.assign(offset + (rows - 1) * s0 + (cols - 1) * s1 + 1, 0.0f);
  std::uniform_real_distribution<float> dist(-1, 1);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      m.storage[offset + i * s0 + j * s1] = dist(rng);
  m.desc = {m.storage.data(), m.storage.data(), offset, {rows, cols}, {s0, s1}};
  return m;
}

float at(const kiln_rt_memref2d_f32 &d, int64_t i, int64_t j) {
  return d.aligned[d.offset + i * d.strides[0] + j * d.strides[1]];
}

using MatmulFn = void (*)(kiln_rt_memref2d_f32 *, kiln_rt_memref2d_f32 *,
                          kiln_rt_memref2d_f32 *);

void checkProduct(MatmulFn fn, bool ta, bool tb, int64_t m, int64_t n,
                  int64_t k, bool columnMajorA, int64_t oddStride,
                  bool columnMajorC = false) {
  std::mt19937 rng(42);
  int64_t ar = ta ? k : m, ac = ta ? m : k;
  int64_t br = tb ? n : k, bc = tb ? k : n;
  Matrix a = columnMajorA ? makeMatrix(ar, ac, 1, ar, 3, rng)
                          : makeMatrix(ar, ac, ac + 2, 1, 1, rng);
  Matrix b = makeMatrix(br, bc, bc * oddStride, oddStride, 0, rng);
  Matrix c = columnMajorC ? makeMatrix(m, n, 1, m, 0, rng)
                          : makeMatrix(m, n, n, 1, 0, rng);
  std::vector<float> before(c.storage);
  fn(&a.desc, &b.desc, &c.desc);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float *out =
          &c.desc.aligned[i * c.desc.strides[0] + j * c.desc.strides[1]];
      double sum = before[out - c.desc.aligned];
      for (int64_t p = 0; p < k; ++p)
        sum += static_cast<double>(ta ? at(a.desc, p, i) : at(a.desc, i, p)) *
               (tb ? at(b.desc, j, p) : at(b.desc, p, j));
      ASSERT_NEAR(*out, sum, 1e-4)
          << "ta=" << ta << " tb=" << tb << " at " << i << "," << j;
    }
}

/// The f32 entry points, one per transpose combination.
struct TransposeCase {
  MatmulFn fn;
  bool ta, tb;
};
const TransposeCase transposeCases[] = {
    {_mlir_ciface_kiln_rt_matmul_f32_nn, false, false},
    {_mlir_ciface_kiln_rt_matmul_f32_nt, false, true},
    {_mlir_ciface_kiln_rt_matmul_f32_tn, true, false},
    {_mlir_ciface_kiln_rt_matmul_f32_tt, true, true}};

TEST(BlasTest, EveryTransposeCombinationAndLayout) {
  for (const TransposeCase &c : transposeCases)
    for (bool columnMajorA : {false, true})
      for (int64_t oddStride : {1, 2}) // 2: no BLAS layout, plain loop
        checkProduct(c.fn, c.ta, c.tb, 7, 5, 9, columnMajorA, oddStride);
}

TEST(BlasTest, ColumnMajorResult) {
  // A matmul writing a transposed layout: computed as C^T = B^T A^T.
  for (const TransposeCase &c : transposeCases)
    for (bool columnMajorA : {false, true})
      checkProduct(c.fn, c.ta, c.tb, 7, 5, 9, columnMajorA, 1,
                   /*columnMajorC=*/true);
}

TEST(BlasTest, UnitAndEmptyDims) {
  checkProduct(_mlir_ciface_kiln_rt_matmul_f32_nn, false, false, 1, 5, 3, false,
               1);
  checkProduct(_mlir_ciface_kiln_rt_matmul_f32_nt, false, true, 4, 1, 1, false,
               1);
  checkProduct(_mlir_ciface_kiln_rt_matmul_f32_nn, false, false, 3, 4, 0, false,
               1);
}

TEST(BlasTest, BatchedDouble) {
  // Two batches of [2x3] x [3x2]^T... as nt: C[b] += A[b] B[b]^T.
  std::vector<double> a(2 * 2 * 3), b(2 * 2 * 3), c(2 * 2 * 2, 1.0);
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = 0.5 * i;
    b[i] = 1.0 - 0.25 * i;
  }
  kiln_rt_memref3d_f64 da = {a.data(), a.data(), 0, {2, 2, 3}, {6, 3, 1}};
  kiln_rt_memref3d_f64 db = {b.data(), b.data(), 0, {2, 2, 3}, {6, 3, 1}};
  kiln_rt_memref3d_f64 dc = {c.data(), c.data(), 0, {2, 2, 2}, {4, 2, 1}};
  _mlir_ciface_kiln_rt_batch_matmul_f64_nt(&da, &db, &dc);
  for (int batch = 0; batch < 2; ++batch)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 2; ++j) {
        double sum = 1.0;
        for (int p = 0; p < 3; ++p)
          sum += a[batch * 6 + i * 3 + p] * b[batch * 6 + j * 3 + p];
        EXPECT_DOUBLE_EQ(c[batch * 4 + i * 2 + j], sum);
      }
}

/// Attention's heads: C[b, h] = A[b, h] B[b, h]^T with A and B views of
/// [batch, rows, heads, cols] buffers (the heads interleaved in each row)
/// and C written as [batch, rows, heads, cols] too. `rows` 64 makes the
/// batch large enough to be split over the pool by whole items.
void checkHeads(int64_t rows, bool set) {
  const int64_t batch = 3, heads = 4, d = 8;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> a(batch * rows * heads * d), b(a.size()),
      c(batch * rows * heads * rows);
  for (float &x : a)
    x = dist(rng);
  for (float &x : b)
    x = dist(rng);
  for (float &x : c)
    x = dist(rng);
  std::vector<float> before(c);
  // [batch, heads, rows, d] views: strides of [batch, rows, heads, d].
  kiln_rt_memref4d_f32 da = {a.data(),
                             a.data(),
                             0,
                             {batch, heads, rows, d},
                             {rows * heads * d, d, heads * d, 1}};
  kiln_rt_memref4d_f32 db = da;
  db.allocated = db.aligned = b.data();
  kiln_rt_memref4d_f32 dc = {c.data(),
                             c.data(),
                             0,
                             {batch, heads, rows, rows},
                             {rows * heads * rows, rows, heads * rows, 1}};
  (set ? _mlir_ciface_kiln_rt_batch2_matmul_f32_nt_set
       : _mlir_ciface_kiln_rt_batch2_matmul_f32_nt)(&da, &db, &dc);
  for (int64_t x = 0; x < batch; ++x)
    for (int64_t h = 0; h < heads; ++h)
      for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < rows; ++j) {
          int64_t at =
              x * rows * heads * rows + i * heads * rows + h * rows + j;
          double sum = set ? 0.0 : before[at];
          for (int64_t p = 0; p < d; ++p)
            sum +=
                static_cast<double>(a[((x * rows + i) * heads + h) * d + p]) *
                b[((x * rows + j) * heads + h) * d + p];
          ASSERT_NEAR(c[at], sum, 1e-4)
              << x << "," << h << "," << i << "," << j;
        }
}

TEST(BlasTest, TwoBatchDimsWithInterleavedHeads) {
  checkHeads(/*rows=*/5, /*set=*/false);
  checkHeads(/*rows=*/5, /*set=*/true);
  checkHeads(/*rows=*/64, /*set=*/true);
  EXPECT_NE(kiln_rt_blas_lookup("kiln_rt_batch2_matmul_f64_tn_set"), nullptr);
}

TEST(BlasTest, LargeProductsShareTheOpenMPPool) {
  // With the kernels' OpenMP runtime loaded (as the JIT loads it), products
  // of at least 65536 m n k are split by rows (m >= n) or columns of C.
  ASSERT_NE(dlopen(KILN_LIBOMP_PATH, RTLD_NOW | RTLD_GLOBAL), nullptr)
      << dlerror();
  for (const TransposeCase &c : transposeCases)
    for (bool columnMajorA : {false, true}) {
      checkProduct(c.fn, c.ta, c.tb, 71, 40, 33, columnMajorA, 1);
      checkProduct(c.fn, c.ta, c.tb, 33, 71, 40, columnMajorA, 1);
    }
  if (kiln_rt_blas_available() && !getenv("OPENBLAS_NUM_THREADS") &&
      std::strstr(kiln_rt_blas_library(), "openblas"))
    EXPECT_TRUE(kiln_rt_blas_uses_openmp_pool());
}

// OpenBLAS falls back to its SSE3 (Prescott) kernels on CPU models it does
// not know; the runtime names the core from the CPU's features, so that a
// CPU with AVX2 and FMA never gets them (unless the user asks).
TEST(BlasTest, OpenBlasUsesTheCpusVectorKernels) {
#if defined(__x86_64__)
  if (!kiln_rt_blas_available() ||
      !std::strstr(kiln_rt_blas_library(), "openblas"))
    GTEST_SKIP() << "no OpenBLAS";
  void *handle = dlopen(kiln_rt_blas_library(), RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(handle, nullptr);
  auto corename = (char *(*)())dlsym(handle, "openblas_get_corename");
  if (!corename)
    GTEST_SKIP() << "an OpenBLAS without openblas_get_corename";
  std::string core = corename();
  dlclose(handle);
  __builtin_cpu_init();
  const char *user = std::getenv("OPENBLAS_CORETYPE");
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
      (!user || std::string(user) != "Prescott"))
    EXPECT_NE(core, "Prescott");
#else
  GTEST_SKIP() << "x86-64 only";
#endif
}

TEST(BlasTest, ReportsTheLibrary) {
  if (kiln_rt_blas_available())
    EXPECT_STRNE(kiln_rt_blas_library(), "");
  else
    EXPECT_STREQ(kiln_rt_blas_library(), "");
}

} // namespace

namespace {
TEST(BlasTest, SetVariantsOverwrite) {
  // C starts as NaN: the _set entry points never read it.
  std::vector<float> a = {1, 2, 3, 4}, b = {1, 0, 0, 1};
  for (int useBlasLayout : {1, 0}) {
    std::vector<float> c(4 * (useBlasLayout ? 1 : 2), NAN);
    int64_t cs1 = useBlasLayout ? 1 : 2; // stride 2: the plain loop
    kiln_rt_memref2d_f32 da = {a.data(), a.data(), 0, {2, 2}, {2, 1}};
    kiln_rt_memref2d_f32 db = {b.data(), b.data(), 0, {2, 2}, {2, 1}};
    kiln_rt_memref2d_f32 dc = {c.data(), c.data(), 0, {2, 2}, {2 * cs1, cs1}};
    _mlir_ciface_kiln_rt_matmul_f32_nn_set(&da, &db, &dc);
    EXPECT_EQ(c[0], 1);
    EXPECT_EQ(c[cs1], 2);
    EXPECT_EQ(c[2 * cs1], 3);
    EXPECT_EQ(c[3 * cs1], 4);
  }
  // An empty contraction sets C to zero.
  std::vector<float> c(4, NAN);
  kiln_rt_memref2d_f32 da = {a.data(), a.data(), 0, {2, 0}, {2, 1}};
  kiln_rt_memref2d_f32 db = {b.data(), b.data(), 0, {0, 2}, {2, 1}};
  kiln_rt_memref2d_f32 dc = {c.data(), c.data(), 0, {2, 2}, {2, 1}};
  _mlir_ciface_kiln_rt_matmul_f32_nn_set(&da, &db, &dc);
  for (float v : c)
    EXPECT_EQ(v, 0.0f);
}
} // namespace
