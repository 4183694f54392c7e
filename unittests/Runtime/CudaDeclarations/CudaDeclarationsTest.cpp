//===- CudaDeclarationsTest.cpp - kiln's CUDA declarations vs the toolkit -===//
//
// The runtime links no CUDA library: it declares the driver's and cuBLAS's
// entry points by hand (cuda/driver_functions.h, cuda/cublas_functions.h)
// and looks them up with dlsym. A wrong declaration would be silent
// undefined behaviour on a real GPU, so this test, built where the CUDA
// toolkit's headers are installed, checks every one against cuda.h and
// cublas_v2.h: the same arity, each parameter (and the result) of the same
// width and kind (pointer, floating point, integer), and the same symbol
// name after the headers' macros (cuda.h maps cuMemAlloc to
// cuMemAlloc_v2: kiln must look up the versioned name). A parameter kiln
// declares as `int` where the header has an enum is allowed only when that
// enum is int-sized; the test prints each such case.
//
//===----------------------------------------------------------------------===//

#include "Signature.h"

#include "gtest/gtest.h"

#include <cstdio>

using namespace kiln::test;

namespace {

/// Why `kiln` and `toolkit` differ, or "" when they agree.
std::string compareShapes(const ParamShape &kiln, const ParamShape &toolkit,
                          const std::string &what, std::string &notes) {
  if (kiln.size != toolkit.size)
    return what + ": kiln's is " + std::to_string(kiln.size) +
           " bytes, the header's " + std::to_string(toolkit.size);
  if (kiln.isPointer != toolkit.isPointer)
    return what + ": a pointer on one side only";
  if (kiln.isFloat != toolkit.isFloat)
    return what + ": floating point on one side only";
  if (toolkit.isEnum && !kiln.isEnum)
    notes += "  " + what + ": an enum in the header, an int-sized integer " +
             "in kiln (allowed: both are " + std::to_string(kiln.size) +
             " bytes)\n";
  return "";
}

TEST(CudaDeclarationsTest, EveryEntryPointMatchesTheToolkitHeaders) {
  std::vector<Signature> kiln = getKilnSignatures();
  std::vector<Signature> toolkit = getToolkitSignatures();
  ASSERT_EQ(kiln.size(), toolkit.size());
  ASSERT_GT(kiln.size(), 30u);
  std::string notes;
  for (size_t i = 0; i < kiln.size(); ++i) {
    const Signature &k = kiln[i], &t = toolkit[i];
    ASSERT_EQ(k.name, t.name);
    EXPECT_EQ(t.expandedName, k.name)
        << k.name << ": the header maps this name to " << t.expandedName
        << "; the runtime must look up the versioned symbol";
    EXPECT_EQ(k.params.size(), t.params.size())
        << k.name << ": " << k.params.size() << " parameters, the header's "
        << t.params.size();
    if (k.params.size() != t.params.size())
      continue;
    std::string why =
        compareShapes(k.result, t.result, k.name + " result", notes);
    EXPECT_EQ(why, "");
    for (size_t p = 0; p < k.params.size(); ++p) {
      why = compareShapes(k.params[p], t.params[p],
                          k.name + " parameter " + std::to_string(p), notes);
      EXPECT_EQ(why, "");
    }
  }
  std::printf("checked %zu entry points against cuda.h and cublas_v2.h\n%s",
              kiln.size(), notes.c_str());
}

TEST(CudaDeclarationsTest, StructsPassedToTheDriverMatchTheToolkitLayout) {
  Layout kiln = getKilnLayouts(), toolkit = getToolkitLayouts();
  ASSERT_EQ(kiln.size(), toolkit.size());
  for (size_t i = 0; i < kiln.size(); ++i) {
    ASSERT_EQ(kiln[i].first, toolkit[i].first);
    EXPECT_EQ(kiln[i].second, toolkit[i].second)
        << kiln[i].first << ": kiln's size or offset differs from cuda.h's";
  }
}

} // namespace
