//===- HostProgramTest.cpp - host code as steps ------------------------===//
//
// Builds host programs from memref-level entries and runs them with stand-in
// kernels, checking the pointers each launch gets, the copies, and that
// entries a program cannot describe are refused with a reason.
//
//===----------------------------------------------------------------------===//

#include "Compiler/Compile/HostProgram.h"
#include "Compiler/Compile/CpuExecutable.h"
#include "Compiler/Compile/ShapeFunction.h"
#include "KilnTestContext.h"
#include "RuntimeStatus.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <cmath>
#include <cstdlib>
#include <vector>

using namespace kiln;
using kiln::test::Status;
using kiln::test::take;

namespace {

class HostProgramTest : public KilnTestContext {
protected:
  llvm::Expected<HostProgram> build(llvm::StringRef source,
                                    unsigned numInputs = 1,
                                    const ShapeFunction *shapes = nullptr) {
    if (!parse(source))
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "parse error");
    auto entry = module->lookupSymbol<mlir::func::FuncOp>("main");
    return HostProgram::build(entry, numInputs, shapes);
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

/// The runtime's program for `program`, its kernel k bound to
/// recordingKernel.
RuntimeProgram bindRecording(const HostProgram &program) {
  llvm::Expected<RuntimeProgram> created =
      createRuntimeProgram(program.serialize());
  if (!created) {
    ADD_FAILURE() << llvm::toString(created.takeError());
    return nullptr;
  }
  kiln_rt_kernel_entry entry = &recordingKernel;
  EXPECT_EQ(kiln_rt_program_num_kernels(created->get()), 1u);
  EXPECT_STREQ(kiln_rt_program_kernel_name(created->get(), 0), "k");
  EXPECT_EQ(take(kiln_rt_program_bind_cpu(created->get(), &entry, 1)),
            KILN_RT_OK);
  return std::move(*created);
}

TEST_F(HostProgramTest, LaunchesKernelsOnViewsAndCopies) {
  auto program = build(kViewsAndCopies);
  ASSERT_TRUE(static_cast<bool>(program))
      << llvm::toString(program.takeError());
  EXPECT_EQ(program->getKernelNames(), std::vector<std::string>{"k"});
  EXPECT_TRUE(program->getRuntimeFunctionNames().empty());
  RuntimeProgram runtime = bindRecording(*program);
  ASSERT_TRUE(runtime);

  std::vector<float> x(8, 0.0f), out(8, -1.0f);
  void *buffers[] = {x.data(), out.data()};
  launches.clear();
  ASSERT_EQ(take(kiln_rt_program_run_cpu(runtime.get(), buffers, 2, nullptr,
                                         nullptr)),
            KILN_RT_OK);
  ASSERT_EQ(launches.size(), 2u);
  // Row 1 of x, then rows 0 and 1 of the temporary (one buffer).
  EXPECT_EQ(launches[0][0], x.data() + 4);
  EXPECT_EQ(launches[1][0], x.data() + 4);
  EXPECT_EQ(static_cast<float *>(launches[1][1]),
            static_cast<float *>(launches[0][1]) + 4);
  // Column 1 of the temporary (2, 2) went to column 3 of the result.
  EXPECT_EQ(out, (std::vector<float>{-1, -1, -1, 2, -1, -1, -1, 2}));

  // A profile counts the calls and names each, copies included.
  RunProfile profile;
  profile.perCall = true;
  {
    RuntimeProfile counts(&profile);
    ASSERT_EQ(take(kiln_rt_program_run_cpu(runtime.get(), buffers, 2, nullptr,
                                           counts.get())),
              KILN_RT_OK);
  }
  EXPECT_EQ(profile.launches, 2);
  ASSERT_EQ(profile.calls.size(), 2u);
  EXPECT_EQ(profile.calls[0].name, "k");
  EXPECT_EQ(profile.calls[0].calls, 2);
  EXPECT_EQ(profile.calls[1].name, "copy");

  // The wrong number of buffers is refused, naming both counts.
  Status failure = take(
      kiln_rt_program_run_cpu(runtime.get(), buffers, 1, nullptr, nullptr));
  EXPECT_EQ(failure, KILN_RT_INVALID_ARGUMENT);
  EXPECT_EQ(failure.message, "the program takes 2 buffers, 1 given");
}

// A chain of temporaries: a dies before c is allocated, b lives across.
constexpr const char *kChainOfTemporaries = R"mlir(
    func.func private @k(memref<256xf32>, memref<256xf32>)
        attributes {kiln.kernel}
    func.func @main(%x: memref<256xf32>, %out: memref<256xf32>) {
      %a = memref.alloc() : memref<256xf32>
      func.call @k(%x, %a) : (memref<256xf32>, memref<256xf32>) -> ()
      %b = memref.alloc() : memref<256xf32>
      func.call @k(%a, %b) : (memref<256xf32>, memref<256xf32>) -> ()
      memref.dealloc %a : memref<256xf32>
      %c = memref.alloc() : memref<256xf32>
      func.call @k(%b, %c) : (memref<256xf32>, memref<256xf32>) -> ()
      memref.dealloc %b : memref<256xf32>
      func.call @k(%c, %out) : (memref<256xf32>, memref<256xf32>) -> ()
      memref.dealloc %c : memref<256xf32>
      return
    }
  )mlir";

TEST_F(HostProgramTest, PlansTemporariesInOneArenaByLiveness) {
  auto program = build(kChainOfTemporaries);
  ASSERT_TRUE(static_cast<bool>(program))
      << llvm::toString(program.takeError());
  RuntimeProgram runtime = bindRecording(*program);
  ASSERT_TRUE(runtime);
  kiln_rt_memory_plan plan;
  kiln_rt_program_get_memory_plan(runtime.get(), &plan);
  // Three buffers of 1 KiB, at most two live at once: c takes a's place.
  EXPECT_EQ(plan.planned_buffers, 3);
  EXPECT_EQ(plan.unplanned_buffers, 0);
  EXPECT_EQ(plan.buffer_bytes, 3072);
  EXPECT_EQ(plan.live_peak_bytes, 2048);
  EXPECT_EQ(plan.arena_bytes, 2048);

  std::vector<float> x(256, 0.0f), out(256, 0.0f);
  void *buffers[] = {x.data(), out.data()};
  kiln_rt_host_stats before, after;
  kiln_rt_host_get_stats(&before);
  launches.clear();
  ASSERT_EQ(take(kiln_rt_program_run_cpu(runtime.get(), buffers, 2, nullptr,
                                         nullptr)),
            KILN_RT_OK);
  kiln_rt_host_get_stats(&after);
  ASSERT_EQ(launches.size(), 4u);
  char *a = static_cast<char *>(launches[0][1]);
  char *b = static_cast<char *>(launches[1][1]);
  char *c = static_cast<char *>(launches[2][1]);
  EXPECT_EQ(launches[1][0], a);
  EXPECT_EQ(launches[2][0], b);
  EXPECT_EQ(launches[3][0], c);
  EXPECT_EQ(launches[3][1], out.data());
  // One allocation, its buffers 64-byte aligned and apart while live.
  EXPECT_EQ(c, a);
  EXPECT_EQ(std::abs(b - a), 1024);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % 64, 0u);
  EXPECT_EQ(after.allocations - before.allocations, 1u);
  EXPECT_EQ(after.live_bytes, before.live_bytes);
  EXPECT_EQ(out[3], 4.0f);

  // The plan of a program that allocates nothing is empty.
  kiln_rt_program_get_memory_plan(nullptr, &plan);
  EXPECT_EQ(plan.arena_bytes, 0);
}

// What the peeking kernel found in its result before writing it.
std::vector<float> peeked;

// recordingKernel, reading its result's first element first.
void peekingKernel(void **packed) {
  peeked.push_back(**static_cast<float **>(packed[1]));
  recordingKernel(packed);
}

TEST_F(HostProgramTest, PoisonedBuffersShowReadsOfValuesNoStepWrote) {
  kiln_rt_set_buffer_poisoning(1);
  auto program = build(kChainOfTemporaries);
  ASSERT_TRUE(static_cast<bool>(program))
      << llvm::toString(program.takeError());
  auto created = createRuntimeProgram(program->serialize());
  ASSERT_TRUE(static_cast<bool>(created))
      << llvm::toString(created.takeError());
  kiln_rt_kernel_entry entry = &peekingKernel;
  ASSERT_EQ(take(kiln_rt_program_bind_cpu(created->get(), &entry, 1)),
            KILN_RT_OK);
  std::vector<float> x(256, 0.0f), out(256, 0.0f);
  void *buffers[] = {x.data(), out.data()};
  peeked.clear();
  ASSERT_EQ(take(kiln_rt_program_run_cpu(created->get(), buffers, 2, nullptr,
                                         nullptr)),
            KILN_RT_OK);
  kiln_rt_set_buffer_poisoning(0);
  ASSERT_EQ(peeked.size(), 4u);
  // a and b are new; c takes a's freed place, which held 1.0 once: every
  // temporary reads NaN before it is written. The result is the caller's.
  EXPECT_TRUE(std::isnan(peeked[0]));
  EXPECT_TRUE(std::isnan(peeked[1]));
  EXPECT_TRUE(std::isnan(peeked[2]));
  EXPECT_EQ(peeked[3], 0.0f);
}

// The kernel and the all_reduce's runtime call of the collective programs.
constexpr const char *kCollectiveDeclarations = R"mlir(
    func.func private @k(memref<4xf32>, memref<4xf32>) attributes {kiln.kernel}
    func.func private @kiln_rt_all_reduce_f32_r1_mean_d0_g0(
        memref<?xf32, strided<[?], offset: ?>>,
        memref<?xf32, strided<[?], offset: ?>>)
)mlir";

// A collective (an all_reduce's runtime call) between independent kernels.
constexpr const char *kCollective = R"mlir(
    func.func @main(%x: memref<4xf32>, %out: memref<4xf32>) {
      %g = memref.alloc() : memref<4xf32>
      func.call @k(%x, %g) : (memref<4xf32>, memref<4xf32>) -> ()
      %r = memref.alloc() : memref<4xf32>
      %t = memref.alloc() : memref<4xf32>
      func.call @k(%x, %t) : (memref<4xf32>, memref<4xf32>) -> ()
      %gv = memref.cast %g : memref<4xf32> to memref<?xf32, strided<[?], offset: ?>>
      %rv = memref.cast %r : memref<4xf32> to memref<?xf32, strided<[?], offset: ?>>
      func.call @kiln_rt_all_reduce_f32_r1_mean_d0_g0(%gv, %rv)
          : (memref<?xf32, strided<[?], offset: ?>>,
             memref<?xf32, strided<[?], offset: ?>>) -> ()
      %u = memref.alloc() : memref<4xf32>
      func.call @k(%t, %u) : (memref<4xf32>, memref<4xf32>) -> ()
      func.call @k(%r, %out) : (memref<4xf32>, memref<4xf32>) -> ()
      memref.dealloc %g : memref<4xf32>
      memref.dealloc %r : memref<4xf32>
      memref.dealloc %t : memref<4xf32>
      memref.dealloc %u : memref<4xf32>
      return
    }
  )mlir";

TEST_F(HostProgramTest, CollectivesOverlapTheStepsThatDoNotTouchThem) {
  auto program = build(std::string(kCollectiveDeclarations) + kCollective);
  ASSERT_TRUE(static_cast<bool>(program))
      << llvm::toString(program.takeError());
  using Kind = HostProgram::StepKind;
  std::vector<Kind> kinds;
  for (const HostProgram::Step &step : program->getSteps())
    if (step.kind != Kind::Free)
      kinds.push_back(step.kind);
  // The start goes up to just after the result's allocation, past the
  // independent kernel; the wait down to the result's first use.
  EXPECT_EQ(kinds, (std::vector<Kind>{Kind::Alloc, Kind::Kernel, Kind::Alloc,
                                      Kind::Collective, Kind::Alloc,
                                      Kind::Kernel, Kind::Alloc, Kind::Kernel,
                                      Kind::CollectiveWait, Kind::Kernel}));
  EXPECT_TRUE(program->hasCollectives());

  // One rank: the collective copies; the runtime takes the request's
  // start and wait, and runs every kernel.
  RuntimeProgram runtime = bindRecording(*program);
  ASSERT_TRUE(runtime);
  std::vector<float> x(4, 0.5f), out(4, -1.0f);
  void *buffers[] = {x.data(), out.data()};
  launches.clear();
  ASSERT_EQ(take(kiln_rt_program_run_cpu(runtime.get(), buffers, 2, nullptr,
                                         nullptr)),
            KILN_RT_OK);
  ASSERT_EQ(launches.size(), 4u);
  EXPECT_EQ(launches[0][0], x.data());
  EXPECT_EQ(launches[3][1], out.data());
  EXPECT_EQ(out, (std::vector<float>{1, 2, 3, 4}));
}

// Two buckets: the second starts before the first is waited for.
constexpr const char *kTwoCollectives = R"mlir(
    func.func @main(%x: memref<4xf32>, %out: memref<4xf32>) {
      %g1 = memref.alloc() : memref<4xf32>
      func.call @k(%x, %g1) : (memref<4xf32>, memref<4xf32>) -> ()
      %r1 = memref.alloc() : memref<4xf32>
      %g1v = memref.cast %g1 : memref<4xf32> to memref<?xf32, strided<[?], offset: ?>>
      %r1v = memref.cast %r1 : memref<4xf32> to memref<?xf32, strided<[?], offset: ?>>
      func.call @kiln_rt_all_reduce_f32_r1_mean_d0_g0(%g1v, %r1v)
          : (memref<?xf32, strided<[?], offset: ?>>,
             memref<?xf32, strided<[?], offset: ?>>) -> ()
      %g2 = memref.alloc() : memref<4xf32>
      func.call @k(%x, %g2) : (memref<4xf32>, memref<4xf32>) -> ()
      %r2 = memref.alloc() : memref<4xf32>
      %g2v = memref.cast %g2 : memref<4xf32> to memref<?xf32, strided<[?], offset: ?>>
      %r2v = memref.cast %r2 : memref<4xf32> to memref<?xf32, strided<[?], offset: ?>>
      func.call @kiln_rt_all_reduce_f32_r1_mean_d0_g0(%g2v, %r2v)
          : (memref<?xf32, strided<[?], offset: ?>>,
             memref<?xf32, strided<[?], offset: ?>>) -> ()
      func.call @k(%r1, %out) : (memref<4xf32>, memref<4xf32>) -> ()
      func.call @k(%r2, %out) : (memref<4xf32>, memref<4xf32>) -> ()
      memref.dealloc %g1 : memref<4xf32>
      memref.dealloc %r1 : memref<4xf32>
      memref.dealloc %g2 : memref<4xf32>
      memref.dealloc %r2 : memref<4xf32>
      return
    }
  )mlir";

TEST_F(HostProgramTest, SeveralCollectivesAreInFlightAtOnce) {
  auto program = build(std::string(kCollectiveDeclarations) + kTwoCollectives);
  ASSERT_TRUE(static_cast<bool>(program))
      << llvm::toString(program.takeError());
  using Kind = HostProgram::StepKind;
  std::vector<std::pair<Kind, int32_t>> order;
  for (const HostProgram::Step &step : program->getSteps())
    if (step.kind == Kind::Collective || step.kind == Kind::CollectiveWait)
      order.push_back({step.kind, step.slot});
  // Both start before either is waited for; starts and waits keep the
  // program's order.
  EXPECT_EQ(order,
            (std::vector<std::pair<Kind, int32_t>>{{Kind::Collective, 0},
                                                   {Kind::Collective, 1},
                                                   {Kind::CollectiveWait, 0},
                                                   {Kind::CollectiveWait, 1}}));
  RuntimeProgram runtime = bindRecording(*program);
  ASSERT_TRUE(runtime);
  std::vector<float> x(4, 0.5f), out(4, -1.0f);
  void *buffers[] = {x.data(), out.data()};
  launches.clear();
  ASSERT_EQ(take(kiln_rt_program_run_cpu(runtime.get(), buffers, 2, nullptr,
                                         nullptr)),
            KILN_RT_OK);
  EXPECT_EQ(launches.size(), 4u);
}

TEST_F(HostProgramTest, RefusesTruncatedOrCorruptBytes) {
  auto built = build(kViewsAndCopies);
  ASSERT_TRUE(static_cast<bool>(built)) << llvm::toString(built.takeError());
  std::string bytes = built->serialize();
  // Every truncation is an error naming the corruption.
  for (size_t size = 0; size < bytes.size(); ++size) {
    auto read = createRuntimeProgram(llvm::StringRef(bytes.data(), size));
    ASSERT_FALSE(static_cast<bool>(read)) << "truncated to " << size;
    std::string message = llvm::toString(read.takeError());
    EXPECT_NE(message.find("corrupt host program"), std::string::npos);
  }
  // Every flipped byte is refused or reads as some valid program, never a
  // crash (the sanitizer build runs this too); a wrong version is named.
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string flipped = bytes;
    flipped[i] = static_cast<char>(flipped[i] ^ 0xff);
    auto read = createRuntimeProgram(flipped);
    if (!read)
      llvm::consumeError(read.takeError());
  }
  std::string otherVersion = bytes;
  otherVersion[6] = 7;
  auto read = createRuntimeProgram(otherVersion);
  ASSERT_FALSE(static_cast<bool>(read));
  EXPECT_NE(llvm::toString(read.takeError()).find("format version 7"),
            std::string::npos);
}

TEST_F(HostProgramTest, BindingNamesWhatIsMissing) {
  auto program = build(R"mlir(
    func.func private @k(memref<4xf32>) attributes {kiln.kernel}
    func.func @main(%x: memref<4xf32>) {
      func.call @k(%x) : (memref<4xf32>) -> ()
      return
    }
  )mlir");
  ASSERT_TRUE(static_cast<bool>(program))
      << llvm::toString(program.takeError());
  auto runtime = createRuntimeProgram(program->serialize());
  ASSERT_TRUE(static_cast<bool>(runtime))
      << llvm::toString(runtime.takeError());
  llvm::Error error = bindKernels(
      runtime->get(), [](llvm::StringRef name) -> llvm::Expected<void *> {
        return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                       "not compiled");
      });
  EXPECT_EQ(llvm::toString(std::move(error)),
            "no compiled kernel @k: not compiled");
  // Unbound, it does not run.
  float x[4];
  void *buffers[] = {x};
  Status failure = take(
      kiln_rt_program_run_cpu(runtime->get(), buffers, 1, nullptr, nullptr));
  EXPECT_EQ(failure, KILN_RT_INVALID_ARGUMENT);
  EXPECT_NE(failure.message.find("not bound"), std::string::npos) << failure;
}

// What the stand-in dynamic kernel saw: each buffer's descriptor (offset,
// size, stride).
std::vector<std::vector<int64_t>> descriptors;

// A kernel with two rank-1 buffers passed as descriptors: copies the first
// into the second, and fills the rest of the second with -1.
void descriptorKernel(void **packed) {
  auto word = [&](int i) { return *static_cast<int64_t *>(packed[i]); };
  auto *in = *static_cast<float **>(packed[1]);
  auto *out = *static_cast<float **>(packed[6]);
  int64_t inOffset = word(2), inSize = word(3);
  int64_t outOffset = word(7), outSize = word(8);
  descriptors.push_back(
      {inOffset, inSize, word(4), outOffset, outSize, word(9)});
  for (int64_t i = 0; i < outSize; ++i)
    out[outOffset + i] = i < inSize ? in[inOffset + i] : -1.0f;
}

// A dynamic entry: sizes from the input's dim and index arithmetic, a view
// at an offset, a kernel taking descriptors, a result whose size the shape
// function gives, and a check before anything runs.
TEST_F(HostProgramTest, RunsDynamicSizes) {
  constexpr const char *kDynamic = R"mlir(
    func.func private @k(memref<?xf32, strided<[1], offset: ?>>,
                         memref<?xf32, strided<[1], offset: ?>>)
        attributes {kiln.kernel}
    func.func @main(%x: memref<?xf32>, %out: memref<?xf32>) {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %n = memref.dim %x, %c0 : memref<?xf32>
      %m = arith.subi %n, %c1 : index
      %t = memref.alloc(%n) {alignment = 64 : i64} : memref<?xf32>
      %a = memref.subview %x[1] [%m] [1]
          : memref<?xf32> to memref<?xf32, strided<[1], offset: 1>>
      %ac = memref.cast %a : memref<?xf32, strided<[1], offset: 1>>
          to memref<?xf32, strided<[1], offset: ?>>
      %tc = memref.cast %t : memref<?xf32>
          to memref<?xf32, strided<[1], offset: ?>>
      func.call @k(%ac, %tc) : (memref<?xf32, strided<[1], offset: ?>>,
                                memref<?xf32, strided<[1], offset: ?>>) -> ()
      memref.copy %t, %out : memref<?xf32> to memref<?xf32>
      memref.dealloc %t : memref<?xf32>
      return
    }
  )mlir";
  ShapeFunction shapes;
  shapes.results = {{SizeExpr::inputDim(0, 0)}};
  shapes.checks.push_back({SizeExpr::inputDim(0, 0), SizeExpr::constant(100),
                           /*atMost=*/true, "k: the size of x"});
  auto program = build(kDynamic, 1, &shapes);
  ASSERT_TRUE(static_cast<bool>(program))
      << llvm::toString(program.takeError());
  auto created = createRuntimeProgram(program->serialize());
  ASSERT_TRUE(static_cast<bool>(created))
      << llvm::toString(created.takeError());
  kiln_rt_program *runtime = created->get();
  kiln_rt_kernel_entry entry = &descriptorKernel;
  ASSERT_EQ(take(kiln_rt_program_bind_cpu(runtime, &entry, 1)), KILN_RT_OK);
  EXPECT_TRUE(kiln_rt_program_is_dynamic(runtime));
  EXPECT_EQ(kiln_rt_program_num_inputs(runtime), 1);
  // A size known only at run time: the buffer cache, not the arena.
  kiln_rt_memory_plan plan;
  kiln_rt_program_get_memory_plan(runtime, &plan);
  EXPECT_EQ(plan.unplanned_buffers, 1);
  EXPECT_EQ(plan.planned_buffers, 0);
  EXPECT_EQ(plan.arena_bytes, 0);

  for (int64_t n : {5, 1, 64}) {
    SCOPED_TRACE(n);
    int64_t resultDim = -1;
    ASSERT_EQ(take(kiln_rt_program_result_dims(runtime, &n, &resultDim)),
              KILN_RT_OK);
    EXPECT_EQ(resultDim, n);
    std::vector<float> x(n), out(n, 0.0f), expected(n, -1.0f);
    for (int64_t i = 0; i < n; ++i)
      x[i] = static_cast<float>(i * i);
    for (int64_t i = 0; i + 1 < n; ++i)
      expected[i] = x[i + 1];
    void *buffers[] = {x.data(), out.data()};
    descriptors.clear();
    ASSERT_EQ(take(kiln_rt_program_run_cpu(runtime, buffers, 2, &n, nullptr)),
              KILN_RT_OK);
    EXPECT_EQ(out, expected);
    ASSERT_EQ(descriptors.size(), 1u);
    EXPECT_EQ(descriptors[0], (std::vector<int64_t>{1, n - 1, 1, 0, n, 1}));
  }

  // The shape function's check, before anything runs.
  int64_t tooLong = 101;
  std::vector<float> x(101), out(101);
  void *buffers[] = {x.data(), out.data()};
  descriptors.clear();
  Status failure =
      take(kiln_rt_program_run_cpu(runtime, buffers, 2, &tooLong, nullptr));
  EXPECT_EQ(failure, KILN_RT_INVALID_ARGUMENT);
  EXPECT_EQ(failure.message, "@main: k: the size of x: 101 > 100");
  // Sizes that make no view (a size of -1 for an empty x) are an error,
  // never a kernel call.
  int64_t empty = 0;
  failure = take(kiln_rt_program_run_cpu(runtime, buffers, 2, &empty, nullptr));
  EXPECT_EQ(failure, KILN_RT_INVALID_ARGUMENT);
  EXPECT_NE(failure.message.find("sizes disagree"), std::string::npos)
      << failure;
  // A dynamic program needs the dims.
  EXPECT_EQ(
      take(kiln_rt_program_run_cpu(runtime, buffers, 2, nullptr, nullptr)),
      KILN_RT_INVALID_ARGUMENT);
  EXPECT_TRUE(descriptors.empty());
}

// Dynamic dims without a shape function, and anything but straight-line
// buffer code, keep the compiled host code; the reason names the op.
TEST_F(HostProgramTest, RefusesWhatItCannotDescribe) {
  auto dynamic = build(R"mlir(
    func.func @main(%x: memref<?xf32>) {
      return
    }
  )mlir");
  ASSERT_FALSE(static_cast<bool>(dynamic));
  EXPECT_NE(llvm::toString(dynamic.takeError()).find("shape function"),
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
