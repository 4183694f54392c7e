//===- HostTensor.h - a dense tensor in host memory -------------*- C++ -*-===//
//
// The buffer type that kiln-run, the .npy reader/writer, the reference
// interpreter and the compiled executables exchange. Row-major, 64-byte
// aligned storage. No MLIR here.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_SUPPORT_HOSTTENSOR_H
#define KILN_SUPPORT_HOSTTENSOR_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kiln {

/// Element types of kiln tensors; f16 and bf16 are storage types.
/// Signed integers (i32, i64) come last: the order is the runtime ABI's
/// (kiln_rt_dtype) and the module format's.
enum class DType { F32, F64, F16, BF16, I1, I32, I64 };

/// Whether `dtype` is a float type (not i1, i32 or i64).
inline bool isFloatDType(DType dtype) {
  return dtype == DType::F32 || dtype == DType::F64 || dtype == DType::F16 ||
         dtype == DType::BF16;
}
/// Whether `dtype` is i32 or i64.
inline bool isIntegerDType(DType dtype) {
  return dtype == DType::I32 || dtype == DType::I64;
}

/// Bytes per element.
size_t getDTypeSize(DType dtype);
/// The MLIR spelling: "f32", "f64", "f16", "bf16", "i1", "i32", "i64".
llvm::StringRef getDTypeName(DType dtype);
/// Parses the MLIR spelling.
std::optional<DType> parseDTypeName(llvm::StringRef name);

/// "tensor<4x8xf32>": a tensor type as MLIR spells it, for messages.
std::string getTensorTypeString(DType dtype, llvm::ArrayRef<int64_t> shape);
/// "[4, 8]": a list of dims, offsets or sizes, for messages.
std::string getListString(llvm::ArrayRef<int64_t> values);

/// Rounds `value` to the nearest value representable in `dtype` (ties to
/// even); i1 becomes 0 or 1 (`value != 0`); i32 and i64 convert as
/// convertToInteger.
double roundToDType(double value, DType dtype);
/// A float converted to integer type `dtype` (i32 or i64) as kiln.convert
/// does: toward zero, saturating at the type's range, NaN to 0.
int64_t convertToInteger(double value, DType dtype);
/// `value` wrapped to `dtype`'s width (two's complement): the low 32 bits,
/// sign-extended, for i32; itself for i64.
int64_t wrapToDType(int64_t value, DType dtype);

class HostTensor {
public:
  HostTensor() = default;
  /// A zero-filled tensor. Aborts when memory runs out; use create() where
  /// the shape comes from user input.
  HostTensor(DType dtype, std::vector<int64_t> shape);

  /// A zero-filled tensor, or an error for a negative dim, an element count
  /// that overflows, or an allocation that fails.
  static llvm::Expected<HostTensor> create(DType dtype,
                                           std::vector<int64_t> shape);
  /// As create(), but the contents are unspecified: for tensors that are
  /// written in full before anything reads them, like a kernel's results.
  static llvm::Expected<HostTensor>
  createUninitialized(DType dtype, std::vector<int64_t> shape);
  /// A tensor over the caller's row-major buffer, which it neither copies
  /// nor frees: the buffer must outlive the tensor. Fails for a bad shape,
  /// or a buffer that is null or not aligned to the element size.
  static llvm::Expected<HostTensor>
  borrow(DType dtype, std::vector<int64_t> shape, void *data);

  HostTensor(HostTensor &&) = default;
  HostTensor &operator=(HostTensor &&) = default;
  HostTensor(const HostTensor &other);
  HostTensor &operator=(const HostTensor &other);

  DType getDType() const { return dtype; }
  llvm::ArrayRef<int64_t> getShape() const { return shape; }
  int64_t getRank() const { return static_cast<int64_t>(shape.size()); }
  int64_t getNumElements() const { return numElements; }
  size_t getByteSize() const { return numElements * getDTypeSize(dtype); }

  /// Whether the storage is the caller's (borrow()). A copy owns its own.
  bool isBorrowed() const { return !storage.get_deleter().owned; }

  void *getData() { return storage.get(); }
  const void *getData() const { return storage.get(); }

  /// Element `index` (row-major) widened to double (an i64 beyond 2^53
  /// rounds: use getAsInt64).
  double getAsDouble(int64_t index) const;
  /// Stores `value` rounded to the element type (an integer type converts
  /// as kiln.convert does: toward zero, saturating, NaN to 0).
  void setFromDouble(int64_t index, double value);
  /// An i1, i32 or i64 element, exactly; a float element converted as
  /// setFromDouble converts to i64.
  int64_t getAsInt64(int64_t index) const;
  /// Stores an integer: wrapped to an i32 (two's complement), exact in an
  /// i64, rounded to a float type.
  void setFromInt64(int64_t index, int64_t value);

  /// "tensor<4x8xf32>".
  std::string getTypeString() const;

private:
  static llvm::Expected<HostTensor>
  allocate(DType dtype, std::vector<int64_t> shape, bool zero);
  /// Takes ownership of `data` (from kiln_rt_host_alloc).
  HostTensor(DType dtype, std::vector<int64_t> shape, int64_t numElements,
             void *data);

  struct FreeDeleter {
    FreeDeleter() : owned(true) {}
    explicit FreeDeleter(bool owned) : owned(owned) {}
    void operator()(void *p) const;
    bool owned;
  };

  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  int64_t numElements = 0;
  std::unique_ptr<void, FreeDeleter> storage;
};

} // namespace kiln

#endif // KILN_SUPPORT_HOSTTENSOR_H
