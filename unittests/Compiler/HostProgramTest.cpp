//===- HostProgramTest.cpp - host code as steps ------------------------===//
//
// Builds host programs from memref-level entries and runs them with stand-in
// kernels, checking the pointers each launch gets, the copies, and that
// entries a program cannot describe are refused with a reason.
//
//===----------------------------------------------------------------------===//

#include "Compiler/HostProgram.h"
#include "KilnTestContext.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <vector>

using namespace kiln;

namespace {

class HostProgramTest : public KilnTestContext {
protected:
  llvm::Expected<HostProgram> build(llvm::StringRef source) {
    if (!parse(source))
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "parse error");
    auto entry = module->lookupSymbol<mlir::func::FuncOp>("main");
    return HostProgram::build(entry);
  }
};

// What the stand-in kernel saw: the pointers of each launch.
std::vector<std::vector<void *>> launches;

// A kernel with two buffers: writes 1, 2, ... into the second (4 floats).
void recordingKernel(void **packed) {
  void *in = *static_cast<void **>(packed[0]);
  void *out = *static_cast<void **>(packed[1]);
  launches.push_back({in, out});
  for (int i = 0; i < 4; ++i)
    static_cast<float *>(out)[i] = static_cast<float>(i + 1);
}

// Two kernel calls on views, a temporary, a strided copy.
constexpr const char *kViewsAndCopies = R"mlir(
    func.func private @k(memref<4xf32, strided<[1], offset: ?>>,
                         memref<4xf32, strided<[1], offset: ?>>)
        attributes {kiln.kernel}
    func.func @main(%x: memref<2x4xf32>, %out: memref<2x4xf32>) {
      %t = memref.alloc() {alignment = 64 : i64} : memref<2x4xf32>
      %row1 = memref.subview %x[1, 0] [1, 4] [1, 1]
          : memref<2x4xf32> to memref<4xf32, strided<[1], offset: 4>>
      %a = memref.cast %row1 : memref<4xf32, strided<[1], offset: 4>>
          to memref<4xf32, strided<[1], offset: ?>>
      %trow0 = memref.subview %t[0, 0] [1, 4] [1, 1]
          : memref<2x4xf32> to memref<4xf32, strided<[1]>>
      %b = memref.cast %trow0 : memref<4xf32, strided<[1]>>
          to memref<4xf32, strided<[1], offset: ?>>
      func.call @k(%a, %b) : (memref<4xf32, strided<[1], offset: ?>>,
                              memref<4xf32, strided<[1], offset: ?>>) -> ()
      %trow1 = memref.subview %t[1, 0] [1, 4] [1, 1]
          : memref<2x4xf32> to memref<4xf32, strided<[1], offset: 4>>
      %c = memref.cast %trow1 : memref<4xf32, strided<[1], offset: 4>>
          to memref<4xf32, strided<[1], offset: ?>>
      func.call @k(%a, %c) : (memref<4xf32, strided<[1], offset: ?>>,
                              memref<4xf32, strided<[1], offset: ?>>) -> ()
      %col = memref.subview %t[0, 1] [2, 1] [1, 1]
          : memref<2x4xf32> to memref<2xf32, strided<[4], offset: 1>>
      %outcol = memref.subview %out[0, 3] [2, 1] [1, 1]
          : memref<2x4xf32> to memref<2xf32, strided<[4], offset: 3>>
      memref.copy %col, %outcol : memref<2xf32, strided<[4], offset: 1>>
          to memref<2xf32, strided<[4], offset: 3>>
      memref.dealloc %t : memref<2x4xf32>
      return
    }
  )mlir";

/// Resolves `program`'s kernel k to recordingKernel.
void resolveRecording(HostProgram &program) {
  ASSERT_FALSE(static_cast<bool>(program.resolve(
      [](llvm::StringRef name) -> void * {
        return name == "k" ? reinterpret_cast<void *>(&recordingKernel)
                           : nullptr;
      },
      [](llvm::StringRef) -> void * { return nullptr; })));
}

TEST_F(HostProgramTest, LaunchesKernelsOnViewsAndCopies) {
  auto program = build(kViewsAndCopies);
  ASSERT_TRUE(static_cast<bool>(program))
      << llvm::toString(program.takeError());
  EXPECT_EQ(program->getKernelNames(), std::vector<std::string>{"k"});
  EXPECT_TRUE(program->getRuntimeFunctionNames().empty());
  resolveRecording(*program);

  std::vector<float> x(8, 0.0f), out(8, -1.0f);
  launches.clear();
  program->run({x.data(), out.data()});
  ASSERT_EQ(launches.size(), 2u);
  // Row 1 of x, then rows 0 and 1 of the temporary (one buffer).
  EXPECT_EQ(launches[0][0], x.data() + 4);
  EXPECT_EQ(launches[1][0], x.data() + 4);
  EXPECT_EQ(static_cast<float *>(launches[1][1]),
            static_cast<float *>(launches[0][1]) + 4);
  // Column 1 of the temporary (2, 2) went to column 3 of the result.
  EXPECT_EQ(out, (std::vector<float>{-1, -1, -1, 2, -1, -1, -1, 2}));
}

TEST_F(HostProgramTest, SerializesAndReadsBack) {
  auto built = build(kViewsAndCopies);
  ASSERT_TRUE(static_cast<bool>(built)) << llvm::toString(built.takeError());
  std::string bytes = built->serialize();
  auto read = HostProgram::deserialize(bytes);
  ASSERT_TRUE(static_cast<bool>(read)) << llvm::toString(read.takeError());
  EXPECT_EQ(read->serialize(), bytes);
  EXPECT_EQ(read->getKernelNames(), std::vector<std::string>{"k"});
  resolveRecording(*read);
  std::vector<float> x(8, 0.0f), out(8, -1.0f);
  launches.clear();
  ASSERT_FALSE(static_cast<bool>(read->run({x.data(), out.data()})));
  EXPECT_EQ(launches.size(), 2u);
  EXPECT_EQ(out, (std::vector<float>{-1, -1, -1, 2, -1, -1, -1, 2}));
}

TEST_F(HostProgramTest, RefusesTruncatedOrCorruptBytes) {
  auto built = build(kViewsAndCopies);
  ASSERT_TRUE(static_cast<bool>(built)) << llvm::toString(built.takeError());
  std::string bytes = built->serialize();
  // Every truncation is an error naming the corruption.
  for (size_t size = 0; size < bytes.size(); ++size) {
    auto read = HostProgram::deserialize(llvm::ArrayRef(bytes.data(), size));
    ASSERT_FALSE(static_cast<bool>(read)) << "truncated to " << size;
    std::string message = llvm::toString(read.takeError());
    EXPECT_NE(message.find("corrupt host program"), std::string::npos);
  }
  // Every flipped byte is refused or reads as some valid program, never a
  // crash (the sanitizer build runs this too); a wrong version is named.
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string flipped = bytes;
    flipped[i] = static_cast<char>(flipped[i] ^ 0xff);
    auto read = HostProgram::deserialize(flipped);
    if (!read)
      llvm::consumeError(read.takeError());
  }
  std::string otherVersion = bytes;
  otherVersion[6] = 7;
  auto read = HostProgram::deserialize(otherVersion);
  ASSERT_FALSE(static_cast<bool>(read));
  EXPECT_NE(llvm::toString(read.takeError()).find("format version 7"),
            std::string::npos);
}

TEST_F(HostProgramTest, ResolveNamesWhatIsMissing) {
  auto program = build(R"mlir(
    func.func private @k(memref<4xf32>) attributes {kiln.kernel}
    func.func @main(%x: memref<4xf32>) {
      func.call @k(%x) : (memref<4xf32>) -> ()
      return
    }
  )mlir");
  ASSERT_TRUE(static_cast<bool>(program))
      << llvm::toString(program.takeError());
  llvm::Error error =
      program->resolve([](llvm::StringRef) -> void * { return nullptr; },
                       [](llvm::StringRef) -> void * { return nullptr; });
  EXPECT_EQ(llvm::toString(std::move(error)), "no compiled kernel @k");
}

// Dynamic shapes and anything but straight-line buffer code keep the
// compiled host code; the reason names the op.
TEST_F(HostProgramTest, RefusesWhatItCannotDescribe) {
  auto dynamic = build(R"mlir(
    func.func @main(%x: memref<?xf32>) {
      return
    }
  )mlir");
  ASSERT_FALSE(static_cast<bool>(dynamic));
  EXPECT_NE(llvm::toString(dynamic.takeError()).find("static buffer"),
            std::string::npos);

  auto loop = build(R"mlir(
    func.func @main(%x: memref<4xf32>) {
      %c0 = arith.constant 0 : index
      %c4 = arith.constant 4 : index
      %c1 = arith.constant 1 : index
      scf.for %i = %c0 to %c4 step %c1 {
        %v = memref.load %x[%i] : memref<4xf32>
        memref.store %v, %x[%i] : memref<4xf32>
      }
      return
    }
  )mlir");
  ASSERT_FALSE(static_cast<bool>(loop));
  EXPECT_EQ(llvm::toString(loop.takeError()), "scf.for: not a host step");

  auto unknownCall = build(R"mlir(
    func.func private @helper(memref<4xf32>)
    func.func @main(%x: memref<4xf32>) {
      func.call @helper(%x) : (memref<4xf32>) -> ()
      return
    }
  )mlir");
  ASSERT_FALSE(static_cast<bool>(unknownCall));
  EXPECT_EQ(llvm::toString(unknownCall.takeError()),
            "func.call: a call of @helper");
}

} // namespace
