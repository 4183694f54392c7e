//===- RandomInputs.cpp - deterministic random program inputs -------------===//

#include "Support/RandomInputs.h"

using namespace kiln;

/// splitmix64: a tiny generator whose output is the same on every platform.
static uint64_t nextRandom(uint64_t &state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

llvm::Expected<HostTensor> kiln::makeRandomInput(DType dtype,
                                                 llvm::ArrayRef<int64_t> shape,
                                                 uint64_t seed, size_t index) {
  llvm::Expected<HostTensor> created = HostTensor::create(dtype, shape.vec());
  if (!created)
    return created.takeError();
  uint64_t state = seed * 0x2545F4914F6CDD1Dull + index + 1;
  for (int64_t i = 0; i < created->getNumElements(); ++i) {
    uint64_t bits = nextRandom(state);
    double unit = static_cast<double>(bits >> 11) * 0x1.0p-53;
    if (isIntegerDType(dtype))
      created->setFromInt64(i, static_cast<int64_t>(bits % 12) - 2);
    else
      created->setFromDouble(i, dtype == DType::I1 ? (bits & 1)
                                                   : 2.0 * unit - 1.0);
  }
  return created;
}
