//===- ElementTypes.cpp - kiln dtypes as MLIR types -----------------------===//

#include "kiln/Support/ElementTypes.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace kiln;
using llvm::StringRef;

Type kiln::getElementType(MLIRContext &context, DType dtype) {
  switch (dtype) {
  case DType::F32:
    return Float32Type::get(&context);
  case DType::F64:
    return Float64Type::get(&context);
  case DType::F16:
    return Float16Type::get(&context);
  case DType::BF16:
    return BFloat16Type::get(&context);
  case DType::I1:
    return IntegerType::get(&context, 1);
  case DType::I32:
    return IntegerType::get(&context, 32);
  case DType::I64:
    return IntegerType::get(&context, 64);
  }
  return {};
}

llvm::Expected<DType> kiln::getDType(Type type) {
  if (type.isF32())
    return DType::F32;
  if (type.isF64())
    return DType::F64;
  if (type.isF16())
    return DType::F16;
  if (type.isBF16())
    return DType::BF16;
  if (type.isInteger(1))
    return DType::I1;
  if (type.isSignlessInteger(32))
    return DType::I32;
  if (type.isSignlessInteger(64))
    return DType::I64;
  std::string name;
  llvm::raw_string_ostream os(name);
  type.print(os);
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "unsupported element type " + name);
}

llvm::Error kiln::checkMatchesType(const HostTensor &value, Type type,
                                   StringRef what) {
  std::string expected;
  llvm::raw_string_ostream os(expected);
  type.print(os);
  auto tensorType = dyn_cast<RankedTensorType>(type);
  auto mismatch = [&] {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   what + " is " + value.getTypeString() +
                                       " but " + expected + " is expected");
  };
  if (!tensorType)
    return mismatch();
  llvm::Expected<DType> dtype = getDType(tensorType.getElementType());
  if (!dtype)
    return dtype.takeError();
  if (*dtype != value.getDType() || tensorType.getRank() != value.getRank())
    return mismatch();
  for (auto [want, have] : llvm::zip(tensorType.getShape(), value.getShape()))
    if (!ShapedType::isDynamic(want) && want != have)
      return mismatch();
  return llvm::Error::success();
}
