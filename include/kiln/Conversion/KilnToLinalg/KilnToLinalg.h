//===- KilnToLinalg.h - kiln to linalg lowering patterns -------*- C++ -*-===//

#ifndef KILN_CONVERSION_KILNTOLINALG_KILNTOLINALG_H
#define KILN_CONVERSION_KILNTOLINALG_KILNTOLINALG_H

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"

namespace kiln {

struct KilnToLinalgOptions {
  /// Mark matmuls with a kiln_rt_* library_call (a BLAS at run time)
  /// instead of leaving them to loop generation: f32 and f64 products, and
  /// f16/bf16 ones (kiln_rt_matmul_bf16_*, whose result is the f32
  /// accumulator).
  bool matmulLibraryCalls = false;
  /// With matmulLibraryCalls, for a runtime whose products honour a
  /// precision (cuBLAS's compute types): an f32 matmul's precision is
  /// named in its call (kiln_rt_matmul_f32tf32_*, _f32bf16_*). Without it,
  /// f32 products are f32.
  bool tensorCoreCalls = false;
  /// Lower kiln.scatter_add to parallel kernels that sum each element's
  /// updates in index order along a chain (the GPU's: no host loop, no
  /// atomics) instead of one in-place add per index (the CPU's).
  bool parallelScatters = false;
};

/// Adds the patterns that lower every kiln op except kiln.vjp,
/// kiln.fusion_group and kiln.yield to linalg, tensor, arith and math.
void populateKilnToLinalgPatterns(mlir::RewritePatternSet &patterns,
                                  const KilnToLinalgOptions &options = {});

/// Configures `target` so that no kiln op is legal.
void configureKilnToLinalgTarget(mlir::ConversionTarget &target);

} // namespace kiln

#endif // KILN_CONVERSION_KILNTOLINALG_KILNTOLINALG_H
