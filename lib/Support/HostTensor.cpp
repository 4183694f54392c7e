//===- HostTensor.cpp - a dense tensor in host memory ---------------------===//

#include "kiln/Support/HostTensor.h"
#include "Support/RuntimeError.h"
#include "kiln_rt/kiln_rt.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/StringSwitch.h"

#include "llvm/Support/ErrorHandling.h"
#include <cmath>
#include <cstdlib>
#include <cstring>

using namespace kiln;

size_t kiln::getDTypeSize(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return 4;
  case DType::F64:
    return 8;
  case DType::F16:
  case DType::BF16:
    return 2;
  case DType::I1:
    return 1;
  case DType::I32:
    return 4;
  case DType::I64:
    return 8;
  }
  return 0;
}

llvm::StringRef kiln::getDTypeName(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return "f32";
  case DType::F64:
    return "f64";
  case DType::F16:
    return "f16";
  case DType::BF16:
    return "bf16";
  case DType::I1:
    return "i1";
  case DType::I32:
    return "i32";
  case DType::I64:
    return "i64";
  }
  return "?";
}

std::optional<DType> kiln::parseDTypeName(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<DType>>(name)
      .Case("f32", DType::F32)
      .Case("f64", DType::F64)
      .Case("f16", DType::F16)
      .Case("bf16", DType::BF16)
      .Case("i1", DType::I1)
      .Case("i32", DType::I32)
      .Case("i64", DType::I64)
      .Default(std::nullopt);
}

static const llvm::fltSemantics &getHalfSemantics(DType dtype) {
  return dtype == DType::F16 ? llvm::APFloat::IEEEhalf()
                             : llvm::APFloat::BFloat();
}

/// `value` rounded to f16 or bf16 (ties to even).
static llvm::APFloat toHalf(double value, DType dtype) {
  llvm::APFloat f(value);
  bool losesInfo = false;
  f.convert(getHalfSemantics(dtype), llvm::APFloat::rmNearestTiesToEven,
            &losesInfo);
  return f;
}

int64_t kiln::convertToInteger(double value, DType dtype) {
  if (std::isnan(value))
    return 0;
  double low = dtype == DType::I32 ? -2147483648.0 : -9223372036854775808.0;
  // 2^31 and 2^63: the first values above the type's range.
  double high = dtype == DType::I32 ? 2147483648.0 : 9223372036854775808.0;
  if (value <= low)
    return dtype == DType::I32 ? INT32_MIN : INT64_MIN;
  if (value >= high)
    return dtype == DType::I32 ? INT32_MAX : INT64_MAX;
  return static_cast<int64_t>(std::trunc(value));
}

int64_t kiln::wrapToDType(int64_t value, DType dtype) {
  return dtype == DType::I32
             ? static_cast<int32_t>(static_cast<uint32_t>(value))
             : value;
}

double kiln::roundToDType(double value, DType dtype) {
  switch (dtype) {
  case DType::I32:
  case DType::I64:
    return static_cast<double>(convertToInteger(value, dtype));
  case DType::F64:
    return value;
  case DType::F32:
    return static_cast<float>(value);
  case DType::I1:
    return value != 0.0 ? 1.0 : 0.0;
  case DType::F16:
  case DType::BF16:
    return toHalf(value, dtype).convertToDouble();
  }
  return value;
}

void HostTensor::FreeDeleter::operator()(void *p) const {
  if (owned)
    kiln_rt_host_free(p);
}

HostTensor::HostTensor(DType dtype, std::vector<int64_t> shape,
                       int64_t numElements, void *data)
    : dtype(dtype), shape(std::move(shape)), numElements(numElements),
      storage(data) {}

llvm::Expected<HostTensor> HostTensor::create(DType dtype,
                                              std::vector<int64_t> shape) {
  return allocate(dtype, std::move(shape), /*zero=*/true);
}

llvm::Expected<HostTensor>
HostTensor::createUninitialized(DType dtype, std::vector<int64_t> shape) {
  return allocate(dtype, std::move(shape), /*zero=*/false);
}

/// The element count of `shape`, or why it has none.
static llvm::Expected<int64_t> countElements(llvm::StringRef what, DType dtype,
                                             llvm::ArrayRef<int64_t> shape) {
  auto fail = [&](const llvm::Twine &why) {
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        what + " " + getTensorTypeString(dtype, shape) + ": " + why);
  };
  // Cap the element count well below overflow of the byte size.
  constexpr int64_t maxElements = int64_t(1) << 56;
  int64_t count = 1;
  for (int64_t d : shape) {
    if (d < 0)
      return fail("negative dim");
    if (d != 0 && count > maxElements / d)
      return fail("too many elements");
    count *= d;
  }
  return count;
}

llvm::Expected<HostTensor>
HostTensor::allocate(DType dtype, std::vector<int64_t> shape, bool zero) {
  llvm::Expected<int64_t> count =
      countElements("cannot allocate", dtype, shape);
  if (!count)
    return count.takeError();
  // 64-byte alignment suits vector loads. The runtime's allocator keeps the
  // live-byte count that metrics and leak tests read.
  void *data = nullptr;
  size_t bytes = *count * getDTypeSize(dtype);
  // The message is made only on failure: allocating is on every run's path.
  if (kiln_rt_status status =
          zero ? kiln_rt_host_alloc(bytes, 64, &data)
               : kiln_rt_host_alloc_uninitialized(bytes, 64, &data))
    return takeRuntimeError(status, "cannot allocate " +
                                        getTensorTypeString(dtype, shape));
  return HostTensor(dtype, std::move(shape), *count, data);
}

llvm::Expected<HostTensor>
HostTensor::borrow(DType dtype, std::vector<int64_t> shape, void *data) {
  llvm::Expected<int64_t> count = countElements("cannot wrap", dtype, shape);
  if (!count)
    return count.takeError();
  auto fail = [&](const llvm::Twine &why) {
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "cannot wrap " + getTensorTypeString(dtype, shape) + ": " + why);
  };
  if (!data && *count > 0)
    return fail("the buffer is null");
  if (reinterpret_cast<uintptr_t>(data) % getDTypeSize(dtype) != 0)
    return fail("the buffer is not aligned to its element size");
  HostTensor tensor(dtype, std::move(shape), *count, data);
  tensor.storage.get_deleter().owned = false;
  return tensor;
}

HostTensor::HostTensor(DType dtype, std::vector<int64_t> shape) {
  llvm::Expected<HostTensor> tensor = create(dtype, std::move(shape));
  if (!tensor)
    llvm::report_fatal_error(tensor.takeError());
  *this = std::move(*tensor);
}

HostTensor::HostTensor(const HostTensor &other)
    : HostTensor(other.dtype, other.shape) {
  std::memcpy(getData(), other.getData(), getByteSize());
}

HostTensor &HostTensor::operator=(const HostTensor &other) {
  if (this != &other)
    *this = HostTensor(other);
  return *this;
}

double HostTensor::getAsDouble(int64_t index) const {
  const char *base = static_cast<const char *>(getData());
  switch (dtype) {
  case DType::F32: {
    float v;
    std::memcpy(&v, base + 4 * index, 4);
    return v;
  }
  case DType::F64: {
    double v;
    std::memcpy(&v, base + 8 * index, 8);
    return v;
  }
  case DType::F16:
  case DType::BF16: {
    uint16_t bits;
    std::memcpy(&bits, base + 2 * index, 2);
    llvm::APFloat f(getHalfSemantics(dtype), llvm::APInt(16, bits));
    return f.convertToDouble();
  }
  case DType::I1:
    return base[index] != 0 ? 1.0 : 0.0;
  case DType::I32:
  case DType::I64:
    return static_cast<double>(getAsInt64(index));
  }
  return 0.0;
}

int64_t HostTensor::getAsInt64(int64_t index) const {
  const char *base = static_cast<const char *>(getData());
  switch (dtype) {
  case DType::I32: {
    int32_t v;
    std::memcpy(&v, base + 4 * index, 4);
    return v;
  }
  case DType::I64: {
    int64_t v;
    std::memcpy(&v, base + 8 * index, 8);
    return v;
  }
  case DType::I1:
    return base[index] != 0;
  default:
    return convertToInteger(getAsDouble(index), DType::I64);
  }
}

void HostTensor::setFromInt64(int64_t index, int64_t value) {
  char *base = static_cast<char *>(getData());
  switch (dtype) {
  case DType::I32: {
    int32_t v = static_cast<int32_t>(wrapToDType(value, DType::I32));
    std::memcpy(base + 4 * index, &v, 4);
    return;
  }
  case DType::I64:
    std::memcpy(base + 8 * index, &value, 8);
    return;
  default:
    setFromDouble(index, static_cast<double>(value));
  }
}

void HostTensor::setFromDouble(int64_t index, double value) {
  char *base = static_cast<char *>(getData());
  switch (dtype) {
  case DType::F32: {
    float v = static_cast<float>(value);
    std::memcpy(base + 4 * index, &v, 4);
    return;
  }
  case DType::F64:
    std::memcpy(base + 8 * index, &value, 8);
    return;
  case DType::F16:
  case DType::BF16: {
    uint16_t bits = static_cast<uint16_t>(
        toHalf(value, dtype).bitcastToAPInt().getZExtValue());
    std::memcpy(base + 2 * index, &bits, 2);
    return;
  }
  case DType::I1:
    base[index] = value != 0.0 ? 1 : 0;
    return;
  case DType::I32:
  case DType::I64:
    setFromInt64(index, convertToInteger(value, dtype));
    return;
  }
}

std::string HostTensor::getTypeString() const {
  return getTensorTypeString(dtype, shape);
}

std::string kiln::getTensorTypeString(DType dtype,
                                      llvm::ArrayRef<int64_t> shape) {
  std::string s = "tensor<";
  // A signature's dynamic dim is ShapedType::kDynamic (INT64_MIN).
  for (int64_t d : shape)
    s += (d == INT64_MIN ? std::string("?") : std::to_string(d)) + "x";
  s += getDTypeName(dtype).str() + ">";
  return s;
}

std::string kiln::getListString(llvm::ArrayRef<int64_t> values) {
  std::string s = "[";
  for (size_t i = 0; i < values.size(); ++i)
    s += (i ? ", " : "") + std::to_string(values[i]);
  return s + "]";
}
