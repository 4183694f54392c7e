//===- kiln-opt.cpp - mlir-opt with kiln registered -------------------------===//
//
// mlir-opt with the kiln dialect, kiln's passes and pipelines, and every
// upstream dialect and pass that kiln lowers to.
//
//===----------------------------------------------------------------------===//

#include "kiln/Pipelines/Pipelines.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  kiln::registerAllKilnPasses();
  mlir::DialectRegistry registry;
  kiln::registerAllKilnDialects(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "kiln optimizer driver\n", registry));
}
