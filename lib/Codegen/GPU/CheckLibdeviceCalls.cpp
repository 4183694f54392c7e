//===- CheckLibdeviceCalls.cpp - the -kiln-check-libdevice-calls pass -----===//
//
// Refuses kernels that call libdevice when it is not linked. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "kiln/Codegen/GPU/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "llvm/ADT/StringSet.h"

namespace kiln {
#define GEN_PASS_DEF_KILNCHECKLIBDEVICECALLS
#include "kiln/Codegen/GPU/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {
struct KilnCheckLibdeviceCallsPass
    : kiln::impl::KilnCheckLibdeviceCallsBase<KilnCheckLibdeviceCallsPass> {
  void runOnOperation() override {
    // One error per function, at its first call.
    llvm::StringSet<> reported;
    getOperation().walk([&](LLVM::CallOp call) {
      std::optional<StringRef> callee = call.getCallee();
      if (!callee || !callee->starts_with("__nv_") ||
          !reported.insert(*callee).second)
        return;
      call.emitError() << "'" << *callee
                       << "' is a libdevice function (f64 transcendentals "
                          "on the GPU): link libdevice with the GPU "
                          "pipeline's libdevice option (kiln-run "
                          "--libdevice, or KILN_LIBDEVICE)";
    });
    if (!reported.empty())
      signalPassFailure();
  }
};
} // namespace
