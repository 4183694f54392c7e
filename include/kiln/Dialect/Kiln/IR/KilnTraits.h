//===- KilnTraits.h - kiln op traits ----------------------------*- C++ -*-===//
//
// The C++ side of the native traits declared in KilnInterfaces.td.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_IR_KILNTRAITS_H
#define KILN_DIALECT_KILN_IR_KILNTRAITS_H

#include "mlir/IR/OpDefinition.h"

namespace kiln {
/// That the operands and the result of elementwise op `op` have one shape
/// (compatible dims where some are dynamic); the error names the shapes and
/// suggests kiln.broadcast_in_dim.
mlir::LogicalResult verifyElementwiseShapes(mlir::Operation *op);

/// The constant that `op` folds to when every operand is a constant
/// (`operands`, as the folder sees them): its ScalarSemanticsOpInterface
/// evaluated at every element, rounded to the result's element type. Null
/// when an operand is not constant or the result is not static.
mlir::OpFoldResult
foldConstantElements(mlir::Operation *op,
                     llvm::ArrayRef<mlir::Attribute> operands);

} // namespace kiln

// Where upstream's dialects put their traits (mlir::OpTrait::tosa, ...), so
// that kiln code with both namespaces in use still sees one OpTrait.
namespace mlir::OpTrait::kiln {
/// Constant folding through the op's scalar semantics, tried after the
/// op's own folder.
template <typename ConcreteType>
class FoldsConstantElements
    : public TraitBase<ConcreteType, FoldsConstantElements> {
public:
  static OpFoldResult foldTrait(Operation *op, ArrayRef<Attribute> operands) {
    return ::kiln::foldConstantElements(op, operands);
  }
};

/// See Kiln_Transcendental (KilnInterfaces.td).
template <typename ConcreteType>
class Transcendental : public TraitBase<ConcreteType, Transcendental> {};

/// See verifyElementwiseShapes.
template <typename ConcreteType>
class ElementwiseShapes : public TraitBase<ConcreteType, ElementwiseShapes> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    return ::kiln::verifyElementwiseShapes(op);
  }
};
} // namespace mlir::OpTrait::kiln

#endif // KILN_DIALECT_KILN_IR_KILNTRAITS_H
