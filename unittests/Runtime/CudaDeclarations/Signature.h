//===- Signature.h - a function type as sizes and kinds ---------*- C++ -*-===//
//
// What the ABI sees of a function type: its arity and, per parameter (and
// the result), its size and whether it is a pointer, a floating-point value
// or an enum. Built once from kiln's hand declarations and once from the
// CUDA toolkit's headers, in separate translation units (their typedefs of
// the same names differ), and compared by CudaDeclarationsTest.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_UNITTESTS_RUNTIME_SIGNATURE_H
#define KILN_UNITTESTS_RUNTIME_SIGNATURE_H

#include <cstddef>
#include <string>
#include <type_traits>
#include <vector>

namespace kiln::test {

struct ParamShape {
  size_t size;
  bool isPointer, isFloat, isEnum;
};

struct Signature {
  /// The name as written in the list, and as the header's macros expand
  /// it (cuda.h maps cuMemAlloc to cuMemAlloc_v2); kiln's side has both
  /// equal.
  std::string name, expandedName;
  ParamShape result;
  std::vector<ParamShape> params;
};

template <typename T> ParamShape shapeOf() {
  return {sizeof(T), std::is_pointer_v<T>, std::is_floating_point_v<T>,
          std::is_enum_v<T>};
}

template <typename F> struct SignatureOf;
template <typename R, typename... A> struct SignatureOf<R (*)(A...)> {
  static Signature get(std::string name, std::string expanded) {
    return {
        std::move(name), std::move(expanded), shapeOf<R>(), {shapeOf<A>()...}};
  }
};

/// kiln's declarations (KilnSide.cpp) and the toolkit's (CudaSide.cpp), in
/// the lists' order: the driver's, then cuBLAS's.
std::vector<Signature> getKilnSignatures();
std::vector<Signature> getToolkitSignatures();

} // namespace kiln::test

#endif // KILN_UNITTESTS_RUNTIME_SIGNATURE_H
