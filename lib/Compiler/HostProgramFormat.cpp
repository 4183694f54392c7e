//===- HostProgramFormat.cpp - a HostProgram as versioned bytes ----------===//
//
// The host program of a compile-cache entry and of an ahead-of-time
// module. Little-endian, fixed-width fields:
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
// The runtime reads them (runtime/program/program.c) and checks every
// field against what running relies on.
//
//===----------------------------------------------------------------------===//

#include "Compiler/HostProgram.h"
#include "Support/ByteStream.h"

using namespace kiln;

namespace {

constexpr llvm::StringLiteral kMagic = "KILNHP";
constexpr uint16_t kVersion = 1;

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
