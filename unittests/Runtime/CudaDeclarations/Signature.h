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

/// The sizes and field offsets of the structs the runtime passes to the
/// driver, as "STRUCT.FIELD" (offset) and "STRUCT" (size), in one order.
using Layout = std::vector<std::pair<std::string, size_t>>;
Layout getKilnLayouts();
Layout getToolkitLayouts();

#define KILN_LAYOUT_OF(KERNEL_PARAMS, UPDATE_INFO, MEMCPY_2D)                  \
  Layout layouts;                                                              \
  layouts.emplace_back("CUDA_KERNEL_NODE_PARAMS", sizeof(KERNEL_PARAMS));      \
  for (auto [name, offset] :                                                   \
       std::initializer_list<std::pair<const char *, size_t>>{                 \
           {"func", offsetof(KERNEL_PARAMS, func)},                            \
           {"gridDimX", offsetof(KERNEL_PARAMS, gridDimX)},                    \
           {"blockDimZ", offsetof(KERNEL_PARAMS, blockDimZ)},                  \
           {"sharedMemBytes", offsetof(KERNEL_PARAMS, sharedMemBytes)},        \
           {"kernelParams", offsetof(KERNEL_PARAMS, kernelParams)},            \
           {"extra", offsetof(KERNEL_PARAMS, extra)},                          \
           {"kern", offsetof(KERNEL_PARAMS, kern)},                            \
           {"ctx", offsetof(KERNEL_PARAMS, ctx)}})                             \
    layouts.emplace_back(std::string("CUDA_KERNEL_NODE_PARAMS.") + name,       \
                         offset);                                              \
  layouts.emplace_back("CUgraphExecUpdateResultInfo", sizeof(UPDATE_INFO));    \
  layouts.emplace_back("CUgraphExecUpdateResultInfo.errorNode",                \
                       offsetof(UPDATE_INFO, errorNode));                      \
  layouts.emplace_back("CUgraphExecUpdateResultInfo.errorFromNode",            \
                       offsetof(UPDATE_INFO, errorFromNode));                  \
  layouts.emplace_back("CUDA_MEMCPY2D", sizeof(MEMCPY_2D));                    \
  for (auto [name, offset] :                                                   \
       std::initializer_list<std::pair<const char *, size_t>>{                 \
           {"srcMemoryType", offsetof(MEMCPY_2D, srcMemoryType)},              \
           {"srcDevice", offsetof(MEMCPY_2D, srcDevice)},                      \
           {"srcPitch", offsetof(MEMCPY_2D, srcPitch)},                        \
           {"dstMemoryType", offsetof(MEMCPY_2D, dstMemoryType)},              \
           {"dstDevice", offsetof(MEMCPY_2D, dstDevice)},                      \
           {"dstPitch", offsetof(MEMCPY_2D, dstPitch)},                        \
           {"WidthInBytes", offsetof(MEMCPY_2D, WidthInBytes)},                \
           {"Height", offsetof(MEMCPY_2D, Height)}})                           \
    layouts.emplace_back(std::string("CUDA_MEMCPY2D.") + name, offset);        \
  return layouts;

} // namespace kiln::test

#endif // KILN_UNITTESTS_RUNTIME_SIGNATURE_H
