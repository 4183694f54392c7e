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

#endif // KILN_DIALECT_KILN_IR_KILNDIALECT_H
