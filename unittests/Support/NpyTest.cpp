//===- NpyTest.cpp - .npy reader and writer -------------------------------===//

#include "kiln/Support/Npy.h"

#include "llvm/Support/FileSystem.h"
#include "gtest/gtest.h"

#include <cstring>

using namespace kiln;

namespace {

/// A .npy v1.0 file with the given header dict and payload.
std::string makeNpy(const std::string &dict, const std::string &payload,
                    char major = 1) {
  std::string header = dict;
  size_t prefix = major == 1 ? 10 : 12;
  header.append((64 - (prefix + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  std::string out("\x93NUMPY", 6);
  out += major;
  out += '\0';
  size_t n = header.size();
  out += static_cast<char>(n & 0xff);
  out += static_cast<char>((n >> 8) & 0xff);
  if (major != 1) {
    out += '\0';
    out += '\0';
  }
  return out + header + payload;
}

std::string floats(std::initializer_list<float> values) {
  std::string s(values.size() * 4, '\0');
  std::memcpy(s.data(), values.begin(), s.size());
  return s;
}

std::string errorOf(llvm::Expected<HostTensor> result) {
  if (result)
    return "";
  return llvm::toString(result.takeError());
}

TEST(NpyTest, ParsesFloat32Matrix) {
  std::string file =
      makeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }",
              floats({1, 2, 3, 4}));
  llvm::Expected<HostTensor> t = parseNpy(file);
  ASSERT_TRUE(static_cast<bool>(t)) << llvm::toString(t.takeError());
  EXPECT_EQ(t->getDType(), DType::F32);
  EXPECT_EQ(t->getShape().vec(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(t->getAsDouble(0), 1.0);
  EXPECT_EQ(t->getAsDouble(3), 4.0);
}

TEST(NpyTest, ParsesScalarVectorAndVersion2) {
  llvm::Expected<HostTensor> scalar = parseNpy(makeNpy(
      "{'descr': '<f4', 'fortran_order': False, 'shape': (), }", floats({7})));
  ASSERT_TRUE(static_cast<bool>(scalar));
  EXPECT_EQ(scalar->getRank(), 0);
  EXPECT_EQ(scalar->getNumElements(), 1);
  EXPECT_EQ(scalar->getAsDouble(0), 7.0);

  llvm::Expected<HostTensor> vector = parseNpy(
      makeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }",
              floats({1, 2, 3}), /*major=*/2));
  ASSERT_TRUE(static_cast<bool>(vector));
  EXPECT_EQ(vector->getShape().vec(), (std::vector<int64_t>{3}));
}

TEST(NpyTest, ParsesFloat64HalfAndBool) {
  double d[2] = {1.5, -2.25};
  std::string payload(reinterpret_cast<char *>(d), sizeof(d));
  llvm::Expected<HostTensor> f64 = parseNpy(makeNpy(
      "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", payload));
  ASSERT_TRUE(static_cast<bool>(f64));
  EXPECT_EQ(f64->getDType(), DType::F64);
  EXPECT_EQ(f64->getAsDouble(1), -2.25);

  // 0x3C00 is 1.0 in IEEE half.
  llvm::Expected<HostTensor> f16 = parseNpy(
      makeNpy("{'descr': '<f2', 'fortran_order': False, 'shape': (1,), }",
              std::string("\x00\x3c", 2)));
  ASSERT_TRUE(static_cast<bool>(f16));
  EXPECT_EQ(f16->getDType(), DType::F16);
  EXPECT_EQ(f16->getAsDouble(0), 1.0);

  llvm::Expected<HostTensor> b1 = parseNpy(
      makeNpy("{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }",
              std::string("\x01\x00\x05", 3)));
  ASSERT_TRUE(static_cast<bool>(b1));
  EXPECT_EQ(b1->getDType(), DType::I1);
  EXPECT_EQ(b1->getAsDouble(0), 1.0);
  EXPECT_EQ(b1->getAsDouble(1), 0.0);
  // Any non-zero byte is normalised to true.
  EXPECT_EQ(static_cast<const unsigned char *>(b1->getData())[2], 1);

  llvm::Expected<HostTensor> i64 = parseNpy(
      makeNpy("{'descr': '<i8', 'fortran_order': False, 'shape': (1,), }",
              std::string("\x01\x00\x00\x00\x00\x00\x00\x80", 8)));
  ASSERT_TRUE(static_cast<bool>(i64));
  EXPECT_EQ(i64->getDType(), DType::I64);
  EXPECT_EQ(i64->getAsInt64(0), INT64_MIN + 1);
  // Written back as '<i8', byte for byte.
  llvm::Expected<HostTensor> again = parseNpy(serializeNpy(*i64));
  ASSERT_TRUE(static_cast<bool>(again));
  EXPECT_EQ(again->getAsInt64(0), INT64_MIN + 1);
}

TEST(NpyTest, RejectsWhatItCannotRead) {
  EXPECT_NE(errorOf(parseNpy("hello")).find("bad magic"), std::string::npos);
  EXPECT_NE(
      errorOf(parseNpy(std::string("\x93NUMPY\x01", 7))).find("truncated"),
      std::string::npos);
  EXPECT_NE(
      errorOf(parseNpy(makeNpy(
                  "{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }",
                  floats({1}))))
          .find("big-endian"),
      std::string::npos);
  EXPECT_NE(
      errorOf(parseNpy(makeNpy(
                  "{'descr': '<i2', 'fortran_order': False, 'shape': (2,), }",
                  floats({1}))))
          .find("unsupported dtype '<i2'"),
      std::string::npos);
  EXPECT_NE(
      errorOf(parseNpy(makeNpy(
                  "{'descr': '<f4', 'fortran_order': True, 'shape': (1,), }",
                  floats({1}))))
          .find("Fortran-order"),
      std::string::npos);
  EXPECT_NE(
      errorOf(parseNpy(makeNpy(
                  "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }",
                  floats({1, 2}))))
          .find("8 bytes but the header describes 12"),
      std::string::npos);
  EXPECT_NE(
      errorOf(parseNpy(makeNpy(
                  "{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }",
                  floats({1}))))
          .find("malformed dimension"),
      std::string::npos);
  EXPECT_NE(errorOf(parseNpy(makeNpy("{'descr': '<f4'}", floats({1}))))
                .find("malformed .npy header"),
            std::string::npos);
  EXPECT_NE(errorOf(parseNpy(std::string("\x93NUMPY\x09\x00\x00\x00", 10)))
                .find("unsupported .npy version 9"),
            std::string::npos);
}

TEST(NpyTest, RoundTripsEveryWritableType) {
  for (DType dtype : {DType::F32, DType::F64, DType::F16, DType::I1}) {
    HostTensor t(dtype, {2, 3});
    for (int64_t i = 0; i < t.getNumElements(); ++i)
      t.setFromDouble(i, dtype == DType::I1 ? i % 2 : 0.5 * i - 1);
    llvm::Expected<HostTensor> back = parseNpy(serializeNpy(t));
    ASSERT_TRUE(static_cast<bool>(back)) << llvm::toString(back.takeError());
    EXPECT_EQ(back->getDType(), dtype);
    EXPECT_EQ(back->getShape().vec(), t.getShape().vec());
    for (int64_t i = 0; i < t.getNumElements(); ++i)
      EXPECT_EQ(back->getAsDouble(i), t.getAsDouble(i));
  }
}

TEST(NpyTest, HeaderIsPaddedTo64Bytes) {
  HostTensor t(DType::F32, {5});
  std::string bytes = serializeNpy(t);
  EXPECT_EQ((bytes.size() - 20) % 64, 0u);
  EXPECT_NE(bytes.find("'shape': (5,)"), std::string::npos);
}

TEST(NpyTest, Bfloat16IsWrittenAsFloat32) {
  HostTensor t(DType::BF16, {2});
  t.setFromDouble(0, 1.5);
  t.setFromDouble(1, -3.0);
  llvm::Expected<HostTensor> back = parseNpy(serializeNpy(t));
  ASSERT_TRUE(static_cast<bool>(back));
  EXPECT_EQ(back->getDType(), DType::F32);
  EXPECT_EQ(back->getAsDouble(0), 1.5);
  EXPECT_EQ(back->getAsDouble(1), -3.0);
}

TEST(NpyTest, FilesRoundTripAndMissingFilesAreNamed) {
  llvm::SmallString<128> path;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("kiln-npy", "npy", path));
  HostTensor t(DType::F64, {3});
  t.setFromDouble(2, 42.0);
  ASSERT_FALSE(static_cast<bool>(writeNpy(path, t)));
  llvm::Expected<HostTensor> back = readNpy(path);
  ASSERT_TRUE(static_cast<bool>(back));
  EXPECT_EQ(back->getAsDouble(2), 42.0);
  llvm::sys::fs::remove(path);

  std::string error = errorOf(readNpy("/nonexistent/kiln.npy"));
  EXPECT_NE(error.find("cannot read '/nonexistent/kiln.npy'"),
            std::string::npos);
  llvm::Error writeError = writeNpy("/nonexistent/dir/out.npy", t);
  ASSERT_TRUE(static_cast<bool>(writeError));
  EXPECT_NE(llvm::toString(std::move(writeError)).find("cannot write"),
            std::string::npos);
}

} // namespace
