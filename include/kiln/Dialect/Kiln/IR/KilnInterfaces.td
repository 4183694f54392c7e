//===- KilnInterfaces.td - kiln op interfaces and traits -----*- tablegen -*-===//
//
// What every elementwise kiln op shares: its value at one element, written
// once (ScalarSemanticsOpInterface), and the constant folding that follows
// from it (FoldsConstantElements).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_IR_KILNINTERFACES_TD
#define KILN_DIALECT_KILN_IR_KILNINTERFACES_TD

include "mlir/IR/OpBase.td"

def Kiln_ScalarSemanticsOpInterface
    : OpInterface<"ScalarSemanticsOpInterface"> {
  let cppNamespace = "::kiln";
  let description = [{
    The semantics of an elementwise op at one element: its result from the
    operands' elements, in double (an `i1` is 0 or 1). The constant folder
    (FoldsConstantElements) and the reference interpreter both evaluate ops
    through it, so the scalar math of an op is written once. The caller
    rounds the result to the result's element type.
  }];
  let methods = [
    InterfaceMethod<[{
        The result at one element, given the operands at that element.
      }],
      "double", "evaluateScalar", (ins "::llvm::ArrayRef<double>":$operands)>
  ];
}

// Folds an op whose operands are all constant by evaluating its
// ScalarSemanticsOpInterface at every element (after the op's own folder,
// if it has one, finds nothing).
def Kiln_FoldsConstantElements : NativeOpTrait<"FoldsConstantElements"> {
  let cppNamespace = "::mlir::OpTrait::kiln";
}

// Verifies that an elementwise op's operands and result have one shape,
// naming the shapes and the fix (kiln.broadcast_in_dim) when they do not;
// listed before Elementwise, whose own message says neither.
def Kiln_ElementwiseShapes : NativeOpTrait<"ElementwiseShapes"> {
  let cppNamespace = "::mlir::OpTrait::kiln";
}

// An elementwise op that computes a transcendental function (exp, log,
// tanh, erf, ...): about ten times an add's arithmetic per element, which
// -kiln-autodiff's automatic rematerialization weighs.
def Kiln_Transcendental : NativeOpTrait<"Transcendental"> {
  let cppNamespace = "::mlir::OpTrait::kiln";
}

#endif // KILN_DIALECT_KILN_IR_KILNINTERFACES_TD
