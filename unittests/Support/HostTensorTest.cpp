//===- HostTensorTest.cpp - host tensors and dtype rounding ---------------===//

#include "kiln/Support/HostTensor.h"
#include "kiln_rt/kiln_rt.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstdint>

using namespace kiln;

namespace {

TEST(HostTensorTest, ZeroFilledAndAligned) {
  HostTensor t(DType::F32, {3, 5});
  EXPECT_EQ(t.getNumElements(), 15);
  EXPECT_EQ(t.getByteSize(), 60u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t.getData()) % 64, 0u);
  for (int64_t i = 0; i < 15; ++i)
    EXPECT_EQ(t.getAsDouble(i), 0.0);
  EXPECT_EQ(t.getTypeString(), "tensor<3x5xf32>");
}

TEST(HostTensorTest, RoundsToTheElementType) {
  HostTensor f32(DType::F32, {1});
  f32.setFromDouble(0, 0.1);
  EXPECT_EQ(f32.getAsDouble(0), static_cast<double>(0.1f));

  HostTensor f16(DType::F16, {1});
  f16.setFromDouble(0, 1.0 + 1.0 / 4096); // below half's resolution at 1
  EXPECT_EQ(f16.getAsDouble(0), 1.0);
  f16.setFromDouble(0, 70000.0); // beyond half's range
  EXPECT_TRUE(std::isinf(f16.getAsDouble(0)));

  HostTensor bf16(DType::BF16, {1});
  bf16.setFromDouble(0, 3.0);
  EXPECT_EQ(bf16.getAsDouble(0), 3.0);
  EXPECT_EQ(roundToDType(1.0 + 1.0 / 512, DType::BF16), 1.0);

  HostTensor i1(DType::I1, {2});
  i1.setFromDouble(0, -3.0);
  EXPECT_EQ(i1.getAsDouble(0), 1.0);
  EXPECT_EQ(i1.getAsDouble(1), 0.0);
}

TEST(HostTensorTest, CopiesAreDeepAndMovesAreCheap) {
  HostTensor a(DType::F64, {4});
  a.setFromDouble(1, 5.0);
  HostTensor b = a;
  b.setFromDouble(1, 6.0);
  EXPECT_EQ(a.getAsDouble(1), 5.0);
  const void *data = b.getData();
  HostTensor c = std::move(b);
  EXPECT_EQ(c.getData(), data);
  EXPECT_EQ(c.getAsDouble(1), 6.0);
}

TEST(HostTensorTest, StorageComesFromTheRuntimeAllocator) {
  kiln_rt_host_stats before, during, after;
  kiln_rt_host_get_stats(&before);
  {
    HostTensor t(DType::F32, {256});
    kiln_rt_host_get_stats(&during);
    EXPECT_EQ(during.live_bytes, before.live_bytes + 1024);
  }
  kiln_rt_host_get_stats(&after);
  EXPECT_EQ(after.live_bytes, before.live_bytes);
}

TEST(HostTensorTest, DTypeNames) {
  for (DType d : {DType::F32, DType::F64, DType::F16, DType::BF16, DType::I1,
                  DType::I32, DType::I64})
    EXPECT_EQ(parseDTypeName(getDTypeName(d)), d);
  EXPECT_FALSE(parseDTypeName("i16").has_value());
}

} // namespace

namespace {
TEST(HostTensorTest, CreateReportsBadShapes) {
  llvm::Expected<HostTensor> negative = HostTensor::create(DType::F32, {-1});
  ASSERT_FALSE(static_cast<bool>(negative));
  EXPECT_NE(llvm::toString(negative.takeError()).find("negative dim"),
            std::string::npos);
  llvm::Expected<HostTensor> huge =
      HostTensor::create(DType::F64, {int64_t(1) << 40, int64_t(1) << 40});
  ASSERT_FALSE(static_cast<bool>(huge));
  EXPECT_NE(llvm::toString(huge.takeError()).find("too many elements"),
            std::string::npos);
  llvm::Expected<HostTensor> empty = HostTensor::create(DType::F32, {0, 5});
  ASSERT_TRUE(static_cast<bool>(empty));
  EXPECT_EQ(empty->getNumElements(), 0);
}
} // namespace

// i32 and i64 (issue 38): exact integers, wrapped or converted as
// kiln.convert converts.
TEST(HostTensorTest, IntegerElements) {
  HostTensor i32(DType::I32, {3});
  i32.setFromInt64(0, (int64_t(1) << 32) + 5); // the low 32 bits
  i32.setFromDouble(1, -2.9);                  // toward zero
  i32.setFromDouble(2, 1e20);                  // saturates
  EXPECT_EQ(i32.getAsInt64(0), 5);
  EXPECT_EQ(i32.getAsInt64(1), -2);
  EXPECT_EQ(i32.getAsInt64(2), INT32_MAX);
  HostTensor i64(DType::I64, {2});
  i64.setFromInt64(0, (int64_t(1) << 60) + 1); // beyond double's 2^53
  i64.setFromDouble(1, std::nan(""));          // NaN gives 0
  EXPECT_EQ(i64.getAsInt64(0), (int64_t(1) << 60) + 1);
  EXPECT_EQ(i64.getAsInt64(1), 0);
  EXPECT_EQ(getDTypeSize(DType::I32), 4u);
  EXPECT_EQ(getDTypeSize(DType::I64), 8u);
  EXPECT_EQ(parseDTypeName("i64"), DType::I64);
  EXPECT_EQ(getDTypeName(DType::I32), "i32");
}
