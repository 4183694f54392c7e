//===- HostProgramFormat.cpp - a HostProgram as versioned bytes ----------===//
//
// The host program of a compile-cache entry (and, later, of an ahead-of-time
// module). Little-endian, fixed-width fields:
//
//   "KILNHP" u16 version
//   i32 numArguments, i32 numSlots
//   u32 count, names (u32 length, bytes)        kernels
//   u32 count, names                            runtime functions
//   u32 count, constants (i32 slot, u64 size, bytes)
//   u32 count, steps:
//     u8 kind, i32 slot, i64 bytes, i32 callee, u32 grid[3], u32 block[3],
//     u32 count, views (i32 slot, i64 offset, i64 elementBytes,
//                       u32 rank, i64 sizes[rank], i64 strides[rank])
//
// Reading checks every field against what run() relies on (slots, callees,
// kinds, ranks, views inside their buffers where the size is known), so
// that bytes that were not written by serialize() are an error, never a
// crash. Integrity (a flipped bit in a valid field) is the container's
// checksum's job.
//
//===----------------------------------------------------------------------===//

#include "Compiler/HostProgram.h"
#include "Support/ByteStream.h"

using namespace kiln;

namespace {

constexpr llvm::StringLiteral kMagic = "KILNHP";
constexpr uint16_t kVersion = 1;
/// Larger counts in a file are corrupt, not programs (an unrolled network
/// has thousands of steps, not billions).
constexpr uint64_t kMaxCount = uint64_t(1) << 28;
constexpr uint32_t kMaxRank = 16;

llvm::Error corrupt(const llvm::Twine &what) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "corrupt host program: " + what);
}

/// The largest element index `view` reaches, -1 when it is empty; none
/// for a negative offset or stride, or on overflow.
std::optional<int64_t> getLastElement(const HostProgram::View &view) {
  if (view.offset < 0)
    return std::nullopt;
  int64_t last = view.offset;
  for (size_t d = 0; d < view.sizes.size(); ++d) {
    if (view.sizes[d] == 0)
      return -1;
    int64_t reach;
    if (view.sizes[d] < 0 || view.strides[d] < 0 ||
        __builtin_mul_overflow(view.sizes[d] - 1, view.strides[d], &reach) ||
        __builtin_add_overflow(last, reach, &last))
      return std::nullopt;
  }
  return last;
}

} // namespace

std::string HostProgram::serialize() const {
  std::string out;
  ByteWriter w(out);
  w.writeRaw(kMagic);
  w.write<uint16_t>(kVersion);
  w.write<int32_t>(numArguments);
  w.write<int32_t>(numSlots);
  for (const std::vector<std::string> *names : {&kernelNames, &runtimeNames}) {
    w.write<uint32_t>(static_cast<uint32_t>(names->size()));
    for (const std::string &name : *names)
      w.writeString(name);
  }
  w.write<uint32_t>(static_cast<uint32_t>(constants.size()));
  for (const Constant &constant : constants) {
    w.write<int32_t>(constant.slot);
    w.writeBytes(llvm::StringRef(constant.data.data(), constant.data.size()));
  }
  w.write<uint32_t>(static_cast<uint32_t>(steps.size()));
  for (const Step &step : steps) {
    w.write<uint8_t>(static_cast<uint8_t>(step.kind));
    w.write<int32_t>(step.slot);
    w.write<int64_t>(step.bytes);
    w.write<int32_t>(step.callee);
    for (unsigned g : step.grid)
      w.write<uint32_t>(g);
    for (unsigned b : step.block)
      w.write<uint32_t>(b);
    w.write<uint32_t>(static_cast<uint32_t>(step.views.size()));
    for (const View &view : step.views) {
      w.write<int32_t>(view.slot);
      w.write<int64_t>(view.offset);
      w.write<int64_t>(view.elementBytes);
      w.write<uint32_t>(static_cast<uint32_t>(view.sizes.size()));
      for (int64_t size : view.sizes)
        w.write<int64_t>(size);
      for (int64_t stride : view.strides)
        w.write<int64_t>(stride);
    }
  }
  return out;
}

llvm::Expected<HostProgram>
HostProgram::deserialize(llvm::ArrayRef<char> bytes) {
  ByteReader r(bytes);
  uint16_t version;
  if (!r.readMagic(kMagic) || !r.read(version))
    return corrupt("not a kiln host program");
  if (version != kVersion)
    return corrupt("format version " + llvm::Twine(version) + ", expected " +
                   llvm::Twine(kVersion));
  HostProgram program;
  uint32_t count;
  if (!r.read(program.numArguments) || !r.read(program.numSlots) ||
      program.numArguments < 0 || program.numSlots < program.numArguments ||
      static_cast<uint64_t>(program.numSlots) > kMaxCount)
    return corrupt("bad slot counts");
  for (std::vector<std::string> *names :
       {&program.kernelNames, &program.runtimeNames}) {
    if (!r.readCount(count, kMaxCount))
      return corrupt("bad name count");
    names->resize(count);
    for (std::string &name : *names)
      if (!r.readString(name) || name.empty())
        return corrupt("bad name");
  }
  // Buffer sizes in bytes where the program knows them (not arguments).
  std::vector<int64_t> slotBytes(program.numSlots, -1);
  std::vector<bool> defined(program.numSlots, false);
  for (int32_t i = 0; i < program.numArguments; ++i)
    defined[i] = true;
  if (!r.readCount(count, kMaxCount))
    return corrupt("bad constant count");
  program.constants.resize(count);
  for (Constant &constant : program.constants) {
    if (!r.read(constant.slot) || !r.readBytes(constant.data) ||
        constant.slot < program.numArguments ||
        constant.slot >= program.numSlots || defined[constant.slot])
      return corrupt("bad constant");
    defined[constant.slot] = true;
    slotBytes[constant.slot] = static_cast<int64_t>(constant.data.size());
  }
  if (!r.readCount(count, kMaxCount))
    return corrupt("bad step count");
  program.steps.resize(count);
  for (Step &step : program.steps) {
    uint8_t kind;
    uint32_t numViews;
    if (!r.read(kind) || !r.read(step.slot) || !r.read(step.bytes) ||
        !r.read(step.callee))
      return corrupt("truncated step");
    for (unsigned &g : step.grid)
      if (!r.read(g))
        return corrupt("truncated step");
    for (unsigned &b : step.block)
      if (!r.read(b))
        return corrupt("truncated step");
    if (kind > static_cast<uint8_t>(StepKind::Launch) ||
        !r.readCount(numViews, kMaxCount))
      return corrupt("bad step");
    step.kind = static_cast<StepKind>(kind);
    step.views.resize(numViews);
    for (View &view : step.views) {
      uint32_t rank;
      if (!r.read(view.slot) || !r.read(view.offset) ||
          !r.read(view.elementBytes) || !r.read(rank) || rank > kMaxRank)
        return corrupt("bad view");
      view.sizes.resize(rank);
      view.strides.resize(rank);
      for (int64_t &size : view.sizes)
        if (!r.read(size))
          return corrupt("truncated view");
      for (int64_t &stride : view.strides)
        if (!r.read(stride))
          return corrupt("truncated view");
      if (view.slot < 0 || view.slot >= program.numSlots ||
          !defined[view.slot] ||
          !llvm::is_contained({1, 2, 4, 8}, view.elementBytes))
        return corrupt("a view of an undefined buffer");
      std::optional<int64_t> last = getLastElement(view);
      int64_t bytes = slotBytes[view.slot];
      if (!last || (bytes >= 0 && (*last + 1) * view.elementBytes > bytes))
        return corrupt("a view outside its buffer");
    }
    switch (step.kind) {
    case StepKind::Alloc:
      if (step.slot < program.numArguments || step.slot >= program.numSlots ||
          defined[step.slot] || step.bytes < 0 || !step.views.empty())
        return corrupt("bad allocation");
      defined[step.slot] = true;
      slotBytes[step.slot] = step.bytes;
      break;
    case StepKind::Free:
      if (step.slot < program.numArguments || step.slot >= program.numSlots ||
          !defined[step.slot] || !step.views.empty())
        return corrupt("bad free");
      defined[step.slot] = false;
      break;
    case StepKind::Kernel:
    case StepKind::Launch:
      if (step.callee < 0 ||
          static_cast<size_t>(step.callee) >= program.kernelNames.size())
        return corrupt("a call of an unknown kernel");
      break;
    case StepKind::RuntimeCall:
      if (step.callee < 0 ||
          static_cast<size_t>(step.callee) >= program.runtimeNames.size() ||
          step.views.empty() || step.views.size() > 4 ||
          llvm::any_of(step.views,
                       [](const View &v) { return v.sizes.size() > 4; }))
        return corrupt("a bad runtime call");
      break;
    case StepKind::Copy:
      if (step.views.size() != 2 ||
          step.views[0].sizes != step.views[1].sizes ||
          step.views[0].elementBytes != step.views[1].elementBytes)
        return corrupt("a bad copy");
      break;
    }
  }
  if (r.remaining() != 0)
    return corrupt("trailing bytes");
  return program;
}
