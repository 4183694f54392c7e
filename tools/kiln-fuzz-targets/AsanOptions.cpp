//===- AsanOptions.cpp - ASan's defaults for the fuzz targets -------------===//
//
// kiln is built with ASan (-DKILN_SANITIZE=ON) against Debian's LLVM and
// MLIR, which are not. LLVM's headers poison the unused tail of a
// BumpPtrAllocator slab in kiln's instrumented code, and the library's
// uninstrumented copy of the allocator hands that memory out without
// unpoisoning it: a false "use-after-poison" in MLIR (found in the
// StorageUniquer behind location attributes). Manual poisoning is turned
// off; ASan's own checks (heap, stack, globals) stay on.
//
//===----------------------------------------------------------------------===//

extern "C" const char *__asan_default_options() {
  return "allow_user_poisoning=0";
}
