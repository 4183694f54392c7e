//===- AutodiffInternals.h - pieces of -kiln-autodiff ----------*- C++ -*-===//
//
// Private to lib/Dialect/Kiln/Transforms/Autodiff: the activity analysis,
// the adjoint accumulator, the per-op VJP rules and recomputation.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_DIALECT_KILN_TRANSFORMS_AUTODIFF_AUTODIFFINTERNALS_H
#define KILN_LIB_DIALECT_KILN_TRANSFORMS_AUTODIFF_AUTODIFFINTERNALS_H

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"

namespace kiln {

using llvm::ArrayRef;
using mlir::Block;
using mlir::Location;
using mlir::LogicalResult;
using mlir::OpBuilder;
using mlir::Operation;
using mlir::RankedTensorType;
using mlir::Type;
using mlir::Value;

//===----------------------------------------------------------------------===//
// Differentiability
//===----------------------------------------------------------------------===//

/// Whether `op` carries derivatives from operand `index` to its results:
/// false for cmp, constant, a select's predicate and conversions to or from
/// i1, and for anything that is not a float tensor.
bool isDifferentiableOperand(Operation *op, unsigned index);

/// Whether a derivative rule exists for `op` (every kiln op but vjp,
/// fusion_group and yield, which the expansion removes first, and
/// attention_grad, which it decomposes).
bool hasVjpRule(Operation *op);

//===----------------------------------------------------------------------===//
// Activity analysis
//===----------------------------------------------------------------------===//

/// Activity of the values of one flattened function body (a single block of
/// kiln ops ending in func.return).
class ActivityAnalysis {
public:
  /// `wrt`: the argument indices to differentiate; `liveResults`: the
  /// results whose cotangent may be non-zero. With `prune` false every
  /// float value that reaches a live result is active (naive derivation).
  ActivityAnalysis(Block &body, ArrayRef<int64_t> wrt,
                   ArrayRef<bool> liveResults, bool prune);

  /// Depends on a wrt argument through differentiable edges.
  bool isVaried(Value v) const { return varied.contains(v); }
  /// Some live result depends on it through differentiable edges.
  bool isUseful(Value v) const { return useful.contains(v); }
  /// Gets an adjoint.
  bool isActive(Value v) const {
    return isUseful(v) && (!prune || isVaried(v));
  }

private:
  bool prune;
  llvm::DenseSet<Value> varied, useful;
};

//===----------------------------------------------------------------------===//
// Adjoint accumulation
//===----------------------------------------------------------------------===//

/// Holds the adjoints of a reverse sweep. A missing entry is a symbolic
/// zero: nothing is ever built to add or multiply a zero. Contributions
/// through slices are kept apart and joined when the adjoint is taken, so
/// that the adjoint of a value read as disjoint chunks is a concat of the
/// chunk adjoints (zeros only in the gaps), never a sum of zero-padded
/// tensors.
class AdjointBuilder {
public:
  AdjointBuilder(OpBuilder &builder, const ActivityAnalysis &activity)
      : builder(builder), activity(activity) {}

  OpBuilder &getBuilder() { return builder; }

  /// Whether operand `index` of `op` gets an adjoint contribution.
  bool needsAdjoint(Operation *op, unsigned index) const;

  /// Adds `contribution` (of `v`'s type) to the adjoint of `v`.
  void add(Value v, Value contribution);

  /// Records the adjoint `ct` of `slice`, a slice of `v`.
  void addSlice(Value v, SliceOp slice, Value ct);

  /// The adjoint of `v` with every contribution joined, or null for zero.
  /// Fails when slice contributions cannot be joined (dynamic shapes).
  mlir::FailureOr<Value> take(Value v, Location loc);

  /// A zero tensor of `type` (static shapes only), or null.
  Value zeros(Location loc, RankedTensorType type, Value like);

  /// A splat of `type`: a constant when static; else a rank-0 constant
  /// broadcast, its dynamic dims those of `like` (a value of the same rank
  /// that has them at the same positions).
  Value splat(Location loc, RankedTensorType type, double value, Value like);

private:
  /// The adjoint `ct` of the slice of the value at `offsets`.
  struct SliceContribution {
    llvm::SmallVector<int64_t> offsets, sizes;
    Value ct;
  };
  mlir::FailureOr<Value> joinSlices(Value v, Location loc,
                                    ArrayRef<SliceContribution> parts);
  Value padSlice(Location loc, Value v, const SliceContribution &part);

  OpBuilder &builder;
  const ActivityAnalysis &activity;
  llvm::DenseMap<Value, Value> adjoints;
  llvm::MapVector<Value, llvm::SmallVector<SliceContribution>> slices;
};

//===----------------------------------------------------------------------===//
// VJP rules
//===----------------------------------------------------------------------===//

/// Adds to `adjoints` the contributions of `op`'s operands, given the
/// adjoints of its results (null for a zero adjoint; at least one is not).
LogicalResult applyVjpRule(Operation *op, ArrayRef<Value> resultAdjoints,
                           AdjointBuilder &adjoints);

//===----------------------------------------------------------------------===//
// Recomputation (Rematerialize.cpp)
//===----------------------------------------------------------------------===//

/// The position of each forward op of a body whose reverse sweep is built:
/// the ops that are not in it are the derivative's.
using ForwardIndex = llvm::DenseMap<Operation *, size_t>;

/// Checkpointing: where a derivative op reads a value of a checkpointed
/// forward op (kCheckpointAttrName), it reads a copy recomputed from the
/// segment's inputs instead. Returns how many ops were copied.
int64_t recomputeCheckpointed(Block &body, const ForwardIndex &forwardIndex);

/// Automatic rematerialization: where a derivative op reads a value of
/// cheap elementwise forward ops (`forward`, in order) that can be
/// recomputed from values kept anyway, or from fewer bytes than its own,
/// for little arithmetic per byte saved, it reads a recomputed copy.
/// Only values read after a gap count: after a derivative kernel that no
/// forward kernel can share. `primalResults` (what the differentiated
/// function returns) count as kept; `cotangents` are the derivative's
/// inputs. Values under `minBytes` are left alone, and one whose
/// recomputation takes a kernel of its own must save 16 times as much.
/// Returns how many ops were copied.
int64_t rematerializeCheapValues(Block &body, ArrayRef<Operation *> forward,
                                 const ForwardIndex &forwardIndex,
                                 ArrayRef<Value> primalResults,
                                 ArrayRef<Value> cotangents, int64_t minBytes);

} // namespace kiln

#endif // KILN_LIB_DIALECT_KILN_TRANSFORMS_AUTODIFF_AUTODIFFINTERNALS_H
