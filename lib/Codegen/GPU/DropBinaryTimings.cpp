//===- DropBinaryTimings.cpp - the -kiln-drop-binary-timings pass ---------===//
//
// Drops the compile timings gpu-module-to-binary records in each object's
// properties, so that the output is the same from run to run.
//
//===----------------------------------------------------------------------===//

#include "kiln/Codegen/GPU/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace kiln {
#define GEN_PASS_DEF_KILNDROPBINARYTIMINGS
#include "kiln/Codegen/GPU/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {
struct KilnDropBinaryTimingsPass
    : kiln::impl::KilnDropBinaryTimingsBase<KilnDropBinaryTimingsPass> {
  void runOnOperation() override {
    getOperation().walk([](gpu::BinaryOp binary) {
      SmallVector<Attribute> objects;
      for (Attribute attr : binary.getObjects()) {
        auto object = dyn_cast<gpu::ObjectAttr>(attr);
        DictionaryAttr properties = object ? object.getProperties() : nullptr;
        if (!properties) {
          objects.push_back(attr);
          continue;
        }
        SmallVector<NamedAttribute> kept;
        for (NamedAttribute property : properties)
          if (!property.getName().strref().ends_with("TimeInMs"))
            kept.push_back(property);
        objects.push_back(gpu::ObjectAttr::get(
            binary.getContext(), object.getTarget(), object.getFormat(),
            object.getObject(), DictionaryAttr::get(binary.getContext(), kept),
            object.getKernels()));
      }
      binary.setObjectsAttr(ArrayAttr::get(binary.getContext(), objects));
    });
  }
};
} // namespace
