//===- Registration.cpp - kiln dialect, pass and translation registration -===//

#include "kiln/Codegen/CPU/Passes.h"
#include "kiln/Codegen/Common/Passes.h"
#include "kiln/Codegen/GPU/Passes.h"
#include "kiln/Conversion/Passes.h"
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Dialect/Kiln/Transforms/Passes.h"
#include "kiln/Pipelines/Pipelines.h"

#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"

using namespace mlir;

void kiln::registerAllKilnPasses() {
  registerAllPasses();
  registerKilnConversionPasses();
  registerKilnCodegenCommonPasses();
  registerKilnCodegenCPUPasses();
  registerKilnCodegenGPUPasses();
  registerKilnTransformsPasses();
  registerExportFusionGraphPass();
  registerKilnPipelines();
}

void kiln::registerAllKilnDialects(DialectRegistry &registry) {
  registry.insert<KilnDialect>();
  registerAllDialects(registry);
  registerAllExtensions(registry);
}

void kiln::registerKilnTranslations(DialectRegistry &registry) {
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerOpenMPDialectTranslation(registry);
  // The kernels' NVVM IR, which gpu-module-to-binary translates to PTX.
  registerGPUDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
}
