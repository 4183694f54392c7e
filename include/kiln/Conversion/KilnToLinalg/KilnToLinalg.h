//===- KilnToLinalg.h - kiln to linalg lowering patterns -------*- C++ -*-===//

#ifndef KILN_CONVERSION_KILNTOLINALG_KILNTOLINALG_H
#define KILN_CONVERSION_KILNTOLINALG_KILNTOLINALG_H

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"

namespace kiln {

/// Adds the patterns that lower every kiln op except kiln.vjp,
/// kiln.fusion_group and kiln.yield to linalg, tensor, arith and math.
void populateKilnToLinalgPatterns(mlir::RewritePatternSet &patterns);

/// Configures `target` so that no kiln op is legal.
void configureKilnToLinalgTarget(mlir::ConversionTarget &target);

} // namespace kiln

#endif // KILN_CONVERSION_KILNTOLINALG_KILNTOLINALG_H
