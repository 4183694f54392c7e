//===- HostProgramFormat.cpp - a HostProgram as versioned bytes ----------===//
//
// The host program of a compile-cache entry and of an ahead-of-time
// module. Little-endian, fixed-width fields:
//
//   "KILNHP" u16 version
//   i32 numArguments, i32 numInputs, i32 numSlots
//   arguments: i64 elementBytes, u32 rank, i64 dims[rank]
//   u32 count, names (u32 length, bytes)        kernels
//   u32 count, names                            runtime functions
//   u32 count, constants (i32 slot, u64 size, bytes)
//   u32 count, steps:
//     u8 kind, u8 op, i32 slot, i64 bytes, i32 callee, i64 grid[3],
//     u32 block[3], i64 lhs, i64 rhs, [check: u32 length, message]
//     u32 count, views (i32 slot, u8 passing, i64 offset, i64 elementBytes,
//                       u32 rank, i64 sizes[rank], i64 strides[rank])
//
// Dims, bytes, grids, offsets, sizes and strides are operands
// (HostProgram::Operand).
//
// The runtime reads them (runtime/program/program_reader.c) and checks every
// field against what running relies on.
//
//===----------------------------------------------------------------------===//

#include "Compiler/Compile/HostProgram.h"
#include "Support/ByteStream.h"

using namespace kiln;

namespace {

constexpr llvm::StringLiteral kMagic = "KILNHP";
constexpr uint16_t kVersion = 3;

} // namespace

std::string HostProgram::serialize() const {
  std::string out;
  ByteWriter w(out);
  w.writeRaw(kMagic);
  w.write<uint16_t>(kVersion);
  w.write<int32_t>(numArguments);
  w.write<int32_t>(numInputs);
  w.write<int32_t>(numSlots);
  for (const Argument &argument : arguments) {
    w.write<int64_t>(argument.elementBytes);
    w.write<uint32_t>(static_cast<uint32_t>(argument.dims.size()));
    for (Operand dim : argument.dims)
      w.write<int64_t>(dim);
  }
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
    w.write<uint8_t>(step.op);
    w.write<int32_t>(step.slot);
    w.write<int64_t>(step.bytes);
    w.write<int32_t>(step.callee);
    for (Operand g : step.grid)
      w.write<int64_t>(g);
    for (unsigned b : step.block)
      w.write<uint32_t>(b);
    w.write<int64_t>(step.lhs);
    w.write<int64_t>(step.rhs);
    if (step.kind == StepKind::Check)
      w.writeString(step.message);
    w.write<uint32_t>(static_cast<uint32_t>(step.views.size()));
    for (const View &view : step.views) {
      w.write<int32_t>(view.slot);
      w.write<uint8_t>(view.descriptor ? 1 : 0);
      w.write<int64_t>(view.offset);
      w.write<int64_t>(view.elementBytes);
      w.write<uint32_t>(static_cast<uint32_t>(view.sizes.size()));
      for (Operand size : view.sizes)
        w.write<int64_t>(size);
      for (Operand stride : view.strides)
        w.write<int64_t>(stride);
    }
  }
  return out;
}
