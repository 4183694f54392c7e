//===- CudaExecutableFormat.cpp - a CUDA executable as a cache payload ----===//
//
// What a compile-cache entry holds for a GPU, and loading it back without
// MLIR. Little-endian, fixed-width fields:
//
//   "KILNCUDA" u16 version
//   entry name; inputs; outputs (ExecutableCache.h's signatures)
//   i64 fusionGroups, uniqueKernels, kernelLaunches; blas string
//   chip string; host program bytes; PTX bytes
//
// The kernels are loaded from the PTX at the first run, as after a compile.
//
//===----------------------------------------------------------------------===//

#include "Compiler/Cache/ExecutableCache.h"
#include "Compiler/Compile/CudaExecutable.h"
#include "Support/ByteStream.h"
#include "Support/RuntimeError.h"

#include <chrono>

using namespace kiln;

namespace {

constexpr llvm::StringLiteral kMagic = "KILNCUDA";
constexpr uint16_t kVersion = 1;

llvm::Error corrupt(const llvm::Twine &what) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "corrupt compile-cache payload: " + what);
}

} // namespace

std::string CudaExecutable::serializeForCache() const {
  std::string out;
  ByteWriter w(out);
  w.writeRaw(kMagic);
  w.write<uint16_t>(kVersion);
  writeEntryRecord(w, entryName, inputs, outputs, stats);
  w.writeString(chip);
  w.writeBytes(programBytes);
  w.writeBytes(ptx);
  return out;
}

llvm::Expected<std::unique_ptr<CudaExecutable>>
CudaExecutable::loadCached(llvm::ArrayRef<char> payload) {
  auto start = std::chrono::steady_clock::now();
  ByteReader r(payload);
  uint16_t version;
  if (!r.readMagic(kMagic) || !r.read(version))
    return corrupt("not a CUDA executable");
  if (version != kVersion)
    return corrupt("format version " + llvm::Twine(version));
  std::unique_ptr<CudaExecutable> exe(new CudaExecutable());
  std::vector<char> program, ptx;
  if (!readEntryRecord(r, exe->entryName, exe->inputs, exe->outputs,
                       exe->stats) ||
      !r.readString(exe->chip) || !r.readBytes(program) || !r.readBytes(ptx) ||
      r.remaining() != 0)
    return corrupt("truncated");
  exe->programBytes.assign(program.begin(), program.end());
  exe->ptx.assign(ptx.begin(), ptx.end());
  llvm::Expected<RuntimeProgram> created =
      createRuntimeProgram(exe->programBytes);
  if (!created)
    return created.takeError();
  exe->program = std::move(*created);
  if (kiln_rt_status status = kiln_rt_program_check_cuda(exe->program.get()))
    return takeRuntimeError(status);
  if (kiln_rt_program_has_launches(exe->program.get()) && exe->ptx.empty())
    return corrupt("launches but no PTX");
  setProgramStats(exe->stats, exe->program.get());
  exe->stats.cache = "hit";
  exe->stats.compileMs = std::chrono::duration<double, std::milli>(
                             std::chrono::steady_clock::now() - start)
                             .count();
  return exe;
}
