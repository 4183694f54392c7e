//===- KilnOps.h - kiln dialect ops -----------------------------*- C++ -*-===//
//
// The op classes generated from KilnOps.td.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_IR_KILNOPS_H
#define KILN_DIALECT_KILN_IR_KILNOPS_H

#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/RegionKindInterface.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "kiln/Dialect/Kiln/IR/KilnTraits.h"

#include "kiln/Dialect/Kiln/IR/KilnInterfaces.h.inc"

namespace kiln {
/// kiln.max and kiln.min at one element (IEEE 754-2019 maximum/minimum:
/// NaN propagates); kiln.reduce_max reduces with the former.
double maximumOf(double a, double b);
double minimumOf(double a, double b);

/// What collectives read and write (their MemoryEffects), so that passes
/// keep each one and their order.
struct CommunicationResource
    : mlir::SideEffects::Resource::Base<CommunicationResource> {
  llvm::StringRef getName() override { return "kiln.communication"; }
};
} // namespace kiln

namespace kiln {
/// One rewrite of kiln.attention's scores (its `score_steps`, a triple
/// [kind, a, b] each; a and b index the score operands, -1 when unused).
enum class AttentionScoreStep : int64_t {
  Mul = 0,     // s * x[a]
  Div = 1,     // s / x[a]
  Add = 2,     // s + x[a]
  Sub = 3,     // s - x[a]
  SubFrom = 4, // x[a] - s
  Keep = 5,    // x[a] ? s : x[b]
  Fill = 6,    // x[a] ? x[b] : s
  Neg = 7,     // -s
};
struct AttentionScoreRewrite {
  AttentionScoreStep kind;
  int64_t a, b;
};
/// The rewrites of `steps` (a kiln.attention's `score_steps`), or
/// std::nullopt when they are malformed for `numOperands` score operands.
std::optional<llvm::SmallVector<AttentionScoreRewrite>>
decodeAttentionScoreSteps(llvm::ArrayRef<int64_t> steps, unsigned numOperands);
} // namespace kiln

#define GET_OP_CLASSES
#include "kiln/Dialect/Kiln/IR/KilnOps.h.inc"

namespace kiln {
/// The integer semantics of an elementwise op that accepts i32/i64 (neg,
/// abs, add, sub, mul, max, min, cmp, select, convert) at one element:
/// two's-complement arithmetic on 64 bits, which the caller wraps to the
/// result's width (an i1 operand or result is 0 or 1). std::nullopt for an
/// op without integer semantics. The double semantics are
/// ScalarSemanticsOpInterface's.
std::optional<int64_t> evaluateIntegerScalar(mlir::Operation *op,
                                             llvm::ArrayRef<int64_t> operands);

/// The number of elements of `type`, or std::nullopt when a dim is dynamic.
std::optional<int64_t> getStaticElementCount(mlir::ShapedType type);

/// For `add` = matmul(a, b) + c, where the matmul (f32 or f64) is read only
/// by the add: that matmul. The add is then the matmul's epilogue, which
/// accumulates the product into c (BLAS's beta = 1) rather than being a
/// kernel of its own; a chain of them is a weight gradient summed over the
/// steps of an unrolled network. Null otherwise.
MatmulOp getAccumulatedMatmul(AddOp add);

/// A collective's attributes, whichever of the three it is: its reduction
/// (CollectiveReduction's value; sum for all_gather), dim (0 for
/// all_reduce) and group.
struct CollectiveAttributes {
  int64_t reduction = 0, dim = 0, group = 0;
};
/// Those of `op`, or none when it is no collective.
std::optional<CollectiveAttributes>
getCollectiveAttributes(mlir::Operation *op);

/// k when `op` is a reduce_sum or reduce_max over exactly the trailing dims
/// k..rank-1 of a statically shaped operand, with k >= 1: it reduces rows
/// indexed by the first k dims (softmax's sum, LayerNorm's mean). 0
/// otherwise.
int64_t getRowReductionRank(mlir::Operation *op);
} // namespace kiln

#endif // KILN_DIALECT_KILN_IR_KILNOPS_H
