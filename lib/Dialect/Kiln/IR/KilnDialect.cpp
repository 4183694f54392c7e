//===- KilnDialect.cpp - the kiln dialect, its enums and attributes ------===//
//
// The dialect: its enums and attributes, the inliner interface, and
// initialize(). The ops register themselves (registerOps, in KilnOps.cpp,
// as LLVM's dialect registers its types apart), so that this unit includes
// nothing of the ops' while the ops' header includes this one.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/IR/KilnDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Transforms/InliningUtils.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace kiln;

#include "kiln/Dialect/Kiln/IR/KilnEnums.cpp.inc"
#include "kiln/Dialect/Kiln/IR/KilnOpsDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "kiln/Dialect/Kiln/IR/KilnAttrs.cpp.inc"

namespace {
/// kiln ops are pure and refer to nothing but their operands (kiln.vjp
/// names a function by symbol, which inlining keeps valid), so any of them,
/// fusion groups with their bodies included, may be inlined anywhere.
struct KilnInlinerInterface : DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;

  bool isLegalToInline(Operation *call, Operation *callable,
                       bool wouldBeCloned) const final {
    return true;
  }
  bool isLegalToInline(Region *dest, Region *src, bool wouldBeCloned,
                       IRMapping &valueMapping) const final {
    return true;
  }
  bool isLegalToInline(Operation *op, Region *dest, bool wouldBeCloned,
                       IRMapping &valueMapping) const final {
    return true;
  }
};
} // namespace

void KilnDialect::initialize() {
  registerOps();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "kiln/Dialect/Kiln/IR/KilnAttrs.cpp.inc"
      >();
  addInterfaces<KilnInlinerInterface>();
}
