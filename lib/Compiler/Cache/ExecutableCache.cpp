//===- ExecutableCache.cpp - executables kept in the disk cache -----------===//

#include "Compiler/Cache/ExecutableCache.h"
#include "Compiler/Compile/CpuExecutable.h"
#include "Compiler/Compile/CudaExecutable.h"
#include "Support/ByteStream.h"
#include "kiln_rt/kiln_rt_blas.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

using namespace kiln;

DiskCache *kiln::getDiskCacheFor(const CompileOptions &options, Device device) {
  if ((device != Device::Cpu && device != Device::Cuda) ||
      options.compileHostCode || options.emulateGpuKernels ||
      !options.objectDumpPath.empty())
    return nullptr;
  return DiskCache::get(options.noCache, options.cacheDirectory);
}

llvm::Expected<std::string> kiln::getCacheKey(llvm::StringRef programKind,
                                              llvm::StringRef program,
                                              llvm::StringRef entry,
                                              const CompileOptions &options,
                                              Device device) {
  DiskCacheKey key;
  key.addHost()
      .add("entry", entry)
      .add("prune", options.autodiffPrune)
      .add("kernel-dedup", options.kernelDedup)
      .add("matmul-precision",
           getFloat32MatmulPrecisionName(options.matmulPrecision))
      .add("autocast", options.autocast ? getDTypeName(*options.autocast) : "");
  llvm::Expected<bool> autoRemat = resolveAutoRemat(options, device);
  if (!autoRemat)
    return autoRemat.takeError();
  key.add("remat", *autoRemat ? "auto" : "none");
  if (options.rematMinBytes)
    key.add("remat-min-bytes", std::to_string(*options.rematMinBytes));
  if (device == Device::Cuda) {
    llvm::Expected<CudaTarget> target = resolveCudaTarget(options);
    if (!target)
      return target.takeError();
    std::string libdevice;
    if (!target->libdevice.empty()) {
      auto contents = llvm::MemoryBuffer::getFile(target->libdevice,
                                                  /*IsText=*/false);
      if (!contents)
        return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                       "cannot read libdevice '" +
                                           target->libdevice + "'");
      libdevice = llvm::toHex(llvm::SHA256::hash(
          llvm::arrayRefFromStringRef((*contents)->getBuffer())));
    }
    key.add("device", "cuda")
        .add("chip", target->chip)
        .add("libdevice", libdevice)
        .add("blas", target->blas ? "cublas" : "");
  } else {
    bool blas = options.blas.value_or(kiln_rt_blas_available() != 0);
    key.add("device", "cpu")
        .add("blas", blas ? kiln_rt_blas_library() : "")
        .add("fold-contraction-layouts", options.foldContractionLayouts)
        .add("fuse-attention", options.fuseAttention);
  }
  return key.add(programKind, program).digest();
}

/// A header before an entry's executable: its length, then the bytes.
static std::string frameHeader(llvm::StringRef header) {
  std::string framed;
  ByteWriter w(framed);
  w.writeString(header);
  return framed;
}

std::unique_ptr<Executable> kiln::loadCachedExecutable(DiskCache &cache,
                                                       llvm::StringRef key,
                                                       Device device,
                                                       std::string *header) {
  std::optional<std::string> payload = cache.load(key);
  if (!payload)
    return nullptr;
  llvm::ArrayRef<char> bytes(payload->data(), payload->size());
  if (header) {
    ByteReader r(bytes);
    if (!r.readString(*header)) {
      llvm::errs() << "kiln: warning: compile cache: an entry without its "
                      "header; compiling again\n";
      return nullptr;
    }
    bytes = bytes.drop_front(bytes.size() - r.remaining());
  }
  llvm::Expected<std::unique_ptr<Executable>> loaded =
      device == Device::Cuda ? llvm::Expected<std::unique_ptr<Executable>>(
                                   CudaExecutable::loadCached(bytes))
                             : llvm::Expected<std::unique_ptr<Executable>>(
                                   CpuExecutable::loadCached(bytes));
  if (loaded)
    return std::move(*loaded);
  llvm::errs() << "kiln: warning: compile cache: "
               << llvm::toString(loaded.takeError()) << "; compiling again\n";
  return nullptr;
}

llvm::Expected<std::unique_ptr<Executable>>
kiln::compileCachedExecutable(mlir::ModuleOp module, llvm::StringRef entry,
                              const CompileOptions &options, Device device,
                              DiskCache &cache, llvm::StringRef key,
                              std::optional<llvm::StringRef> header) {
  std::string prefix = header ? frameHeader(*header) : std::string();
  if (device == Device::Cuda) {
    auto exe = CudaExecutable::compile(module, entry, options);
    if (!exe)
      return exe.takeError();
    (*exe)->setCacheState("miss");
    cache.store(key, prefix + (*exe)->serializeForCache());
    return std::unique_ptr<Executable>(std::move(*exe));
  }
  auto exe =
      CpuExecutable::compile(module, entry, options, KernelObject::ForCache);
  if (!exe)
    return exe.takeError();
  (*exe)->setCacheState("miss");
  if (std::optional<std::string> payload = (*exe)->serializeForCache())
    cache.store(key, prefix + *payload);
  return std::unique_ptr<Executable>(std::move(*exe));
}

/// Larger counts are corrupt, not entries.
static constexpr uint64_t kMaxSignatures = uint64_t(1) << 24;

static void writeSignatures(ByteWriter &w,
                            llvm::ArrayRef<TensorSignature> list) {
  w.write<uint32_t>(static_cast<uint32_t>(list.size()));
  for (const TensorSignature &sig : list) {
    w.write<uint8_t>(static_cast<uint8_t>(sig.dtype));
    w.write<uint32_t>(static_cast<uint32_t>(sig.shape.size()));
    for (int64_t dim : sig.shape)
      w.write<int64_t>(dim);
    w.writeString(sig.typeString);
  }
}

static bool readSignatures(ByteReader &r, std::vector<TensorSignature> &list) {
  uint32_t count;
  if (!r.readCount(count, kMaxSignatures))
    return false;
  list.resize(count);
  for (TensorSignature &sig : list) {
    uint8_t dtype;
    uint32_t rank;
    if (!r.read(dtype) || dtype > static_cast<uint8_t>(DType::I64) ||
        !r.readCount(rank, 64))
      return false;
    sig.dtype = static_cast<DType>(dtype);
    sig.shape.resize(rank);
    // A dynamic dim is ShapedType::kDynamic (INT64_MIN).
    for (int64_t &dim : sig.shape)
      if (!r.read(dim) || (dim < 0 && dim != INT64_MIN))
        return false;
    if (!r.readString(sig.typeString))
      return false;
  }
  return true;
}

void kiln::writeEntryRecord(ByteWriter &w, llvm::StringRef entryName,
                            llvm::ArrayRef<TensorSignature> inputs,
                            llvm::ArrayRef<TensorSignature> outputs,
                            const CompileStats &stats) {
  w.writeString(entryName);
  writeSignatures(w, inputs);
  writeSignatures(w, outputs);
  w.write<int64_t>(stats.fusionGroups);
  w.write<int64_t>(stats.uniqueKernels);
  w.write<int64_t>(stats.kernelLaunches);
  w.writeString(stats.blas);
}

bool kiln::readEntryRecord(ByteReader &r, std::string &entryName,
                           std::vector<TensorSignature> &inputs,
                           std::vector<TensorSignature> &outputs,
                           CompileStats &stats) {
  return r.readString(entryName) && readSignatures(r, inputs) &&
         readSignatures(r, outputs) && r.read(stats.fusionGroups) &&
         r.read(stats.uniqueKernels) && r.read(stats.kernelLaunches) &&
         r.readString(stats.blas);
}
