//===- kiln-opt.cpp - mlir-opt with kiln registered
//-------------------------===//
//
// mlir-opt with the kiln dialect, kiln's passes and pipelines, and every
// upstream dialect and pass that kiln lowers to.
//
//===----------------------------------------------------------------------===//

#include "kiln/Pipelines/Pipelines.h"
#include "kiln/Support/PassStatistics.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  kiln::registerAllKilnPasses();
  mlir::DialectRegistry registry;
  kiln::registerAllKilnDialects(registry);
  kiln::registerKilnTranslations(registry);
  bool statistics = llvm::any_of(llvm::ArrayRef(argv, argc), [](char *arg) {
    return llvm::StringRef(arg).starts_with("-mlir-pass-statistics") ||
           llvm::StringRef(arg).starts_with("--mlir-pass-statistics");
  });
  mlir::LogicalResult result =
      mlir::MlirOptMain(argc, argv, "kiln optimizer driver\n", registry);
  // LLVM without statistics prints an empty report: add kiln's own.
#if !LLVM_ENABLE_STATS
  if (statistics && kiln::hasPassStatistics())
    kiln::printPassStatistics(llvm::errs());
#else
  (void)statistics;
#endif
  return mlir::asMainReturnCode(result);
}
