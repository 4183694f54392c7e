//===- ShapeFunction.h - result shapes from input shapes --------*- C++ -*-===//
//
// An entry with dynamic dims computes its results' sizes from its inputs'.
// Before a run allocates the results (the caller's out-params), the shape
// function says what they are; and it checks the sizes that must agree
// between dynamic dims (a matmul's inner dims, an elementwise op's
// operands, a concat's other dims, a slice inside its operand), which the
// verifier could not, with a message naming the op. It is inferred once,
// from the kiln-level program, and evaluated without MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_COMPILE_SHAPEFUNCTION_H
#define KILN_COMPILER_COMPILE_SHAPEFUNCTION_H

#include "kiln/Support/HostTensor.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mlir::func {
class FuncOp;
} // namespace mlir::func

namespace kiln {

/// A size as a function of an entry's input dims.
class SizeExpr {
public:
  enum class Kind { Constant, InputDim, Add, Sub, Mul, FloorDiv };

  SizeExpr() : SizeExpr(constant(0)) {}
  static SizeExpr constant(int64_t value);
  static SizeExpr inputDim(int32_t input, int32_t dim);
  static SizeExpr add(const SizeExpr &lhs, const SizeExpr &rhs);
  static SizeExpr sub(const SizeExpr &lhs, const SizeExpr &rhs);
  static SizeExpr mul(const SizeExpr &lhs, const SizeExpr &rhs);
  static SizeExpr floorDiv(const SizeExpr &lhs, const SizeExpr &rhs);

  /// The constant it is, if it is one.
  std::optional<int64_t> getConstant() const;
  Kind getKind() const;
  /// InputDim: which input's which dim.
  int32_t getInput() const;
  int32_t getDim() const;
  /// Add, Sub, Mul, FloorDiv: the operands.
  SizeExpr getLhs() const;
  SizeExpr getRhs() const;
  /// The same for copies of one expression: a key for sharing its value.
  const void *getIdentity() const { return node.get(); }
  /// Whether both are the same expression (not only the same value).
  bool isSameAs(const SizeExpr &other) const;
  /// The value for inputs of these shapes; none on a division by zero.
  std::optional<int64_t>
  evaluate(llvm::ArrayRef<llvm::ArrayRef<int64_t>> inputShapes) const;

  /// The expression's tree (ShapeFunction.cpp).
  struct Node;

private:
  explicit SizeExpr(std::shared_ptr<const Node> node) : node(std::move(node)) {}
  std::shared_ptr<const Node> node;
};

/// Two sizes that must be equal (or `lhs` at most `rhs`) for the program to
/// be defined; `what` names the op and the dims, for the error.
struct ShapeCheck {
  SizeExpr lhs, rhs;
  bool atMost = false;
  std::string what;
};

struct ShapeFunction {
  /// Each result's dims.
  std::vector<std::vector<SizeExpr>> results;
  std::vector<ShapeCheck> checks;

  /// The results' shapes for inputs of these shapes, or the first check
  /// that fails, naming the entry, the op and the sizes.
  llvm::Expected<std::vector<std::vector<int64_t>>>
  evaluate(llvm::StringRef entryName,
           llvm::ArrayRef<llvm::ArrayRef<int64_t>> inputShapes) const;
};

/// The shape function of `entry` (kiln ops, calls, fusion groups, vjps,
/// tensor.dim and index arithmetic), or why it cannot be inferred.
llvm::Expected<ShapeFunction> inferShapeFunction(mlir::func::FuncOp entry);

} // namespace kiln

#endif // KILN_COMPILER_COMPILE_SHAPEFUNCTION_H
