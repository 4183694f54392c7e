//===- MatmulPrecision.cpp - what f32 matrix products compute in ----------===//

#include "kiln/Compiler/MatmulPrecision.h"

#include <atomic>

using namespace kiln;

llvm::StringRef
kiln::getFloat32MatmulPrecisionName(Float32MatmulPrecision precision) {
  switch (precision) {
  case Float32MatmulPrecision::Highest:
    return "highest";
  case Float32MatmulPrecision::High:
    return "high";
  case Float32MatmulPrecision::Medium:
    return "medium";
  }
  return "highest";
}

llvm::Expected<Float32MatmulPrecision>
kiln::parseFloat32MatmulPrecision(llvm::StringRef name) {
  for (Float32MatmulPrecision precision :
       {Float32MatmulPrecision::Highest, Float32MatmulPrecision::High,
        Float32MatmulPrecision::Medium})
    if (name == getFloat32MatmulPrecisionName(precision))
      return precision;
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      "float32 matmul precision '" + name +
          "' is not one of 'highest', 'high' or 'medium'");
}

static std::atomic<Float32MatmulPrecision> processPrecision{
    Float32MatmulPrecision::Highest};

void kiln::setFloat32MatmulPrecision(Float32MatmulPrecision precision) {
  processPrecision.store(precision, std::memory_order_relaxed);
}

Float32MatmulPrecision kiln::getFloat32MatmulPrecision() {
  return processPrecision.load(std::memory_order_relaxed);
}
