//===- CpuExecutableFormat.cpp - a CPU executable as a cache payload ------===//
//
// What a compile-cache entry holds for the CPU, and loading it back without
// MLIR. Little-endian, fixed-width fields:
//
//   "KILNCPU" u16 version
//   entry name; u32 count, inputs; u32 count, outputs
//     (u8 dtype, u32 rank, i64 dims[rank], type string)
//   i64 fusionGroups, uniqueKernels, kernelLaunches; blas string
//   host program bytes (HostProgramFormat.cpp)
//   u32 count, runtime symbol names the kernels call
//   donation: u32 count, i64 last reads; u32 count, i64 first writes
//     (each none or one per input / output); u32 count, (u32 input,
//     u32 output) in-place pairs, sorted
//   kernels' object code (ELF), possibly empty
//
// The kernels are linked into the process by an ORC LLJIT of their own,
// with the runtime's entry points defined by name.
//
//===----------------------------------------------------------------------===//

#include "Compiler/Cache/ExecutableCache.h"
#include "Compiler/Compile/CpuExecutable.h"
#include "Support/ByteStream.h"

#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <chrono>

using namespace kiln;

namespace {

constexpr llvm::StringLiteral kMagic = "KILNCPU";
constexpr uint16_t kVersion = 2;
constexpr uint64_t kMaxCount = uint64_t(1) << 24;

llvm::Error corrupt(const llvm::Twine &what) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "corrupt compile-cache payload: " + what);
}

void writeDonationPlan(ByteWriter &w, const DonationPlan &plan) {
  for (const std::vector<int64_t> *positions :
       {&plan.lastReads, &plan.firstWrites}) {
    w.write<uint32_t>(static_cast<uint32_t>(positions->size()));
    for (int64_t position : *positions)
      w.write<int64_t>(position);
  }
  w.write<uint32_t>(static_cast<uint32_t>(plan.inPlace.size()));
  for (auto [input, output] : plan.inPlace) {
    w.write<uint32_t>(static_cast<uint32_t>(input));
    w.write<uint32_t>(static_cast<uint32_t>(output));
  }
}

/// A donation plan for `inputs` and `outputs`: a position per input and
/// per output (or none: an entry the plan could not describe), and sorted
/// in-place pairs among them.
bool readDonationPlan(ByteReader &r, size_t inputs, size_t outputs,
                      DonationPlan &plan) {
  uint32_t count;
  for (auto [positions, expected] : {std::pair(&plan.lastReads, inputs),
                                     std::pair(&plan.firstWrites, outputs)}) {
    if (!r.readCount(count, kMaxCount) || (count && count != expected))
      return false;
    positions->resize(count);
    for (int64_t &position : *positions)
      if (!r.read(position))
        return false;
  }
  if (!r.readCount(count, kMaxCount))
    return false;
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t input, output;
    if (!r.read(input) || !r.read(output) || input >= inputs ||
        output >= outputs)
      return false;
    plan.inPlace.push_back(
        {static_cast<int32_t>(input), static_cast<int32_t>(output)});
  }
  return std::is_sorted(plan.inPlace.begin(), plan.inPlace.end());
}

} // namespace

std::optional<std::string> CpuExecutable::serializeForCache() const {
  if (!program || !keepForCache ||
      (kernelObject.empty() && kiln_rt_program_num_kernels(program.get())))
    return std::nullopt;
  std::string out;
  ByteWriter w(out);
  w.writeRaw(kMagic);
  w.write<uint16_t>(kVersion);
  writeEntryRecord(w, entryName, inputs, outputs, stats);
  w.writeBytes(programBytes);
  w.write<uint32_t>(static_cast<uint32_t>(runtimeSymbolNames.size()));
  for (const std::string &name : runtimeSymbolNames)
    w.writeString(name);
  writeDonationPlan(w, donation);
  w.writeBytes(kernelObject);
  return out;
}

llvm::Expected<std::unique_ptr<CpuExecutable>>
CpuExecutable::loadCached(llvm::ArrayRef<char> payload) {
  auto start = std::chrono::steady_clock::now();
  ByteReader r(payload);
  uint16_t version;
  if (!r.readMagic(kMagic) || !r.read(version))
    return corrupt("not a CPU executable");
  if (version != kVersion)
    return corrupt("format version " + llvm::Twine(version));
  std::unique_ptr<CpuExecutable> exe(new CpuExecutable());
  std::vector<char> programBytes, object;
  uint32_t numSymbols;
  if (!readEntryRecord(r, exe->entryName, exe->inputs, exe->outputs,
                       exe->stats) ||
      !r.readBytes(programBytes) || !r.readCount(numSymbols, kMaxCount))
    return corrupt("truncated");
  for (uint32_t i = 0; i < numSymbols; ++i) {
    std::string name;
    if (!r.readString(name))
      return corrupt("truncated");
    exe->runtimeSymbolNames.push_back(std::move(name));
  }
  if (!readDonationPlan(r, exe->inputs.size(), exe->outputs.size(),
                        exe->donation))
    return corrupt("donation plan");
  if (!r.readBytes(object) || r.remaining() != 0)
    return corrupt("truncated");
  exe->programBytes.assign(programBytes.begin(), programBytes.end());
  llvm::Expected<RuntimeProgram> program =
      createRuntimeProgram(exe->programBytes);
  if (!program)
    return program.takeError();
  exe->program = std::move(*program);
  setProgramStats(exe->stats, exe->program.get());

  if (llvm::Error e = initializeJit())
    return std::move(e);
  if (kiln_rt_program_num_kernels(exe->program.get()) != 0) {
    if (object.empty())
      return corrupt("no object code for the kernels");
    auto jit = llvm::orc::LLJITBuilder().create();
    if (!jit)
      return jit.takeError();
    llvm::orc::JITDylib &dylib = (*jit)->getMainJITDylib();
    // The OpenMP runtime and libc, loaded into the process.
    auto process =
        llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
            (*jit)->getDataLayout().getGlobalPrefix());
    if (!process)
      return process.takeError();
    dylib.addGenerator(std::move(*process));
    llvm::orc::SymbolMap runtime;
    for (const std::string &name : exe->runtimeSymbolNames) {
      void *address = lookupRuntimeSymbol(name);
      if (!address)
        return corrupt("unknown runtime function '" + name + "'");
      runtime[(*jit)->mangleAndIntern(name)] = {
          llvm::orc::ExecutorAddr::fromPtr(address),
          llvm::JITSymbolFlags::Exported};
    }
    if (llvm::Error e = dylib.define(llvm::orc::absoluteSymbols(runtime)))
      return std::move(e);
    if (llvm::Error e =
            (*jit)->addObjectFile(llvm::MemoryBuffer::getMemBufferCopy(
                llvm::StringRef(object.data(), object.size()),
                "kiln-cached-kernels")))
      return std::move(e);
    exe->cachedKernels = std::move(*jit);
  }
  if (llvm::Error e =
          bindKernels(exe->program.get(),
                      [&](llvm::StringRef name) -> llvm::Expected<void *> {
                        // The packed wrapper MLIR's engine made for each
                        // kernel.
                        auto address =
                            exe->cachedKernels->lookup("_mlir_" + name.str());
                        if (!address)
                          return address.takeError();
                        return address->toPtr<void *>();
                      }))
    return corrupt(llvm::toString(std::move(e)));
  exe->stats.cache = "hit";
  exe->stats.compileMs = std::chrono::duration<double, std::milli>(
                             std::chrono::steady_clock::now() - start)
                             .count();
  return exe;
}
