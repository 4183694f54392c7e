//===- ToolSupport.cpp - internal: what kiln's own tools use --------------===//

#include "kiln/Tools/ToolSupport.h"

#include "Compiler/Cache/DiskCache.h"
#include "Compiler/Compile/AotModule.h"
#include "Compiler/Device/DeviceQueue.h"
#include "Compiler/Device/DeviceTensor.h"
#include "Compiler/Frontend/TraceCache.h"
#include "Compiler/Frontend/TraceImporter.h"
#include "Reference/Interpreter.h"
#include "Support/PassStatistics.h"
#include "Support/RandomInputs.h"

using namespace kiln;

std::unique_ptr<tools::DonatedRun>
tools::prepareDonatedRun(const Executable &exe,
                         llvm::ArrayRef<HostTensor> args) {
  auto run = std::make_unique<DonatedRun>();
  const DonationPlan &plan = exe.getDonation();
  const std::vector<TensorSignature> &outputs = exe.getOutputs();
  std::vector<bool> taken(args.size(), false);
  // (input, result) pairs, then the copies (reserved: `args` and `into`
  // point into them).
  std::vector<std::pair<size_t, size_t>> pairs;
  for (size_t r = 0; r < outputs.size(); ++r)
    for (size_t q = 0; q < args.size(); ++q)
      if (!taken[q] && args[q].getDType() == outputs[r].dtype &&
          llvm::ArrayRef<int64_t>(outputs[r].shape) == args[q].getShape() &&
          plan.allows(q, r)) {
        taken[q] = true;
        pairs.push_back({q, r});
        break;
      }
  run->copies.reserve(pairs.size());
  for (const HostTensor &arg : args)
    run->args.push_back(&arg);
  run->into.assign(outputs.size(), nullptr);
  for (auto [q, r] : pairs) {
    run->copies.push_back(args[q]);
    run->args[q] = run->into[r] = &run->copies.back();
  }
  run->donated = pairs.size();
  return run;
}

llvm::Expected<std::vector<HostTensor>>
tools::DonatedRun::run(const Executable &exe, RunProfile *profile) {
  llvm::Expected<std::vector<HostTensor>> results =
      exe.runInto(args, into, profile);
  if (!results)
    return results.takeError();
  for (auto [r, target] : llvm::enumerate(into))
    if (target)
      (*results)[r] = std::move(*target);
  return results;
}

llvm::Expected<std::vector<HostTensor>>
tools::evaluateReference(mlir::func::FuncOp func,
                         llvm::ArrayRef<HostTensor> inputs) {
  return reference::evaluate(func, inputs);
}

llvm::Expected<HostTensor> tools::makeRandomInput(DType dtype,
                                                  llvm::ArrayRef<int64_t> shape,
                                                  uint64_t seed, size_t index) {
  return kiln::makeRandomInput(dtype, shape, seed, index);
}

mlir::OwningOpRef<mlir::ModuleOp>
tools::importTrace(mlir::MLIRContext &context, const TraceProgram &program,
                   llvm::StringRef name) {
  return kiln::importTrace(context, program, name);
}

llvm::Expected<std::string>
tools::compileAotModule(mlir::ModuleOp module, llvm::StringRef entry,
                        const CompileOptions &options) {
  return kiln::compileAotModule(module, entry, options);
}

bool tools::isAotModule(llvm::StringRef bytes) {
  return kiln::isAotModule(bytes);
}

llvm::Expected<std::unique_ptr<Executable>>
tools::loadAotModule(llvm::StringRef path) {
  auto module = ModuleExecutable::load(path);
  if (!module)
    return module.takeError();
  return std::unique_ptr<Executable>(std::move(*module));
}

llvm::Expected<std::shared_ptr<const DeviceValue>>
tools::uploadToDevice(const HostTensor &host) {
  auto uploaded = CudaDeviceTensor::upload(host);
  if (!uploaded)
    return uploaded.takeError();
  return std::shared_ptr<const DeviceValue>(std::move(*uploaded));
}

llvm::Error tools::waitForDevice() { return kiln::waitForDevice(); }

void tools::writeDiskCacheStats(llvm::raw_ostream &os) {
  DiskCacheStats stats = DiskCache::getStats();
  os << "{\"cache_hits\": " << stats.hits
     << ", \"cache_misses\": " << stats.misses
     << ", \"cache_writes\": " << stats.writes
     << ", \"cache_corrupt\": " << stats.corrupt
     << ", \"cache_evictions\": " << stats.evictions
     << ", \"cache_bytes_read\": " << stats.bytesRead
     << ", \"cache_bytes_written\": " << stats.bytesWritten << "}";
}

int64_t tools::getGenericTraceHits() {
  return TraceCache::global().getStats().genericHits;
}

bool tools::printPassStatistics(llvm::raw_ostream &os) {
  if (!hasPassStatistics())
    return false;
  kiln::printPassStatistics(os);
  return true;
}
