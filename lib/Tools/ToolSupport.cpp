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
