//===- KilnDialect.h - kiln dialect declaration -----------------*- C++ -*-===//
//
// The kiln dialect class and its enum attributes.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_IR_KILNDIALECT_H
#define KILN_DIALECT_KILN_IR_KILNDIALECT_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/Operation.h"

#include "kiln/Dialect/Kiln/IR/KilnOpsDialect.h.inc"

#include "kiln/Dialect/Kiln/IR/KilnEnums.h.inc"
#include "mlir/IR/Attributes.h"
#include "mlir/IR/DialectImplementation.h"

#define GET_ATTRDEF_CLASSES
#include "kiln/Dialect/Kiln/IR/KilnAttrs.h.inc"

namespace kiln {
/// The discardable attribute of an op recorded inside a checkpoint segment
/// (kiln::checkpoint, kiln.utils.checkpoint.checkpoint): the segment's
/// number, an i64 >= 1. -kiln-autodiff recomputes the ops of a segment
/// where a derivative needs their values, instead of keeping them.
inline constexpr llvm::StringLiteral kCheckpointAttrName = "kiln.checkpoint";
/// The unit attribute of the copies -kiln-autodiff makes to recompute ops:
/// it keeps CSE from folding a copy into the forward op it repeats.
inline constexpr llvm::StringLiteral kRecomputedAttrName = "kiln.recomputed";
/// The unit attribute -kiln-autodiff (remat=auto) leaves on a derivative op
/// that can run only after a derivative kernel no forward kernel can share
/// (a product, a column reduction, a gather): a group may hold it together
/// with a recomputation that comes later in the block, since the group runs
/// in the backward all the same. -kiln-fuse reads it and removes it.
inline constexpr llvm::StringLiteral kAfterGapAttrName = "kiln.after_gap";
/// The dictionary -kiln-plan-donation leaves on a host function: which
/// inputs each result may be written into (kiln::DonationPlan).
inline constexpr llvm::StringLiteral kDonationAttrName = "kiln.donation";
} // namespace kiln

#endif // KILN_DIALECT_KILN_IR_KILNDIALECT_H
