//===- TraceCache.cpp - compiled executables by trace program -------------===//

#include "Compiler/Frontend/TraceCache.h"
#include "Compiler/Cache/ExecutableCache.h"
#include "Compiler/Frontend/TraceImporter.h"
#include "kiln/Pipelines/Pipelines.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

#include <chrono>
#include <cstdlib>
#include <cstring>

using namespace kiln;

TraceCache::TraceCache(size_t capacity)
    : capacity(capacity > 0 ? capacity : 1) {
  explainMisses = false;
}

mlir::MLIRContext &TraceCache::getContext() {
  // Made at the first compile: a process whose programs all come from the
  // compile cache creates none.
  if (!context) {
    mlir::DialectRegistry registry;
    registerAllKilnDialects(registry);
    context = std::make_unique<mlir::MLIRContext>(registry);
    context->loadAllAvailableDialects();
    std::lock_guard<std::mutex> lock(mutex);
    ++stats.contexts;
  }
  return *context;
}

TraceCache::~TraceCache() = default;

TraceCache &TraceCache::global() {
  // Never destroyed: its executables' JIT engines and OpenMP threads must
  // not be torn down by static destructors that run in no defined order
  // with LLVM's and the OpenMP runtime's own.
  static TraceCache *cache = new TraceCache();
  return *cache;
}

TraceCacheStats TraceCache::getStats() const {
  std::lock_guard<std::mutex> lock(mutex);
  return stats;
}

size_t TraceCache::size() const {
  std::lock_guard<std::mutex> lock(mutex);
  return order.size();
}

llvm::Expected<std::shared_ptr<const Executable>>
TraceCache::get(const TraceProgram &program, Device device,
                Float32MatmulPrecision precision) {
  if (program.incomplete)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "internal error: a program extracted without part of its forward "
        "(a lazy gradient's); set KILN_LAZY_GRAD=0 and report it");
  if (device == Device::Auto) {
    llvm::Expected<Device> resolved = resolveDevice(device);
    if (!resolved)
      return resolved.takeError();
    device = *resolved;
  }
  // The device in the key's low bit: a program compiles once per device.
  uint64_t key = (program.hash << 1) | (device == Device::Cuda ? 1 : 0);
  if (precision != Float32MatmulPrecision::Highest)
    key = llvm::hash_combine(key, static_cast<int>(precision));
  auto lookup = [&]() -> std::shared_ptr<const Executable> {
    auto it = byKey.find(key);
    if (it == byKey.end())
      return nullptr;
    order.splice(order.begin(), order, it->second);
    return it->second->executable;
  };
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (std::shared_ptr<const Executable> exe = lookup()) {
      ++stats.hits;
      return exe;
    }
    ++stats.misses;
    // KILN_EXPLAIN_MISS=1 (read at each miss) or setExplainMisses.
    const char *explain = std::getenv("KILN_EXPLAIN_MISS");
    if (explainMisses.load(std::memory_order_relaxed) ||
        (explain && std::string(explain) != "0"))
      llvm::errs() << explainMiss(program) << "\n";
  }
  // One compile at a time: another thread may have compiled the program
  // while this one waited.
  std::lock_guard<std::mutex> compiling(compileMutex);
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (std::shared_ptr<const Executable> exe = lookup())
      return exe;
  }
  auto start = std::chrono::steady_clock::now();
  CompileOptions options;
  options.device = device;
  options.matmulPrecision = precision;
  // 1. A shape-generic executable that fits: no compile, no disk.
  bool compiled = false;
  std::shared_ptr<const Executable> exe =
      findGeneric(program, options, GenericMode::Fit, compiled);
  // 2. The compile cache on disk, keyed by the trace: a hit needs no MLIR.
  DiskCache *disk = exe ? nullptr : getDiskCacheFor(options, device);
  std::string diskKey;
  if (disk) {
    // KILN_DUMP_TRACES writes each program as it is imported: it needs the
    // module, which a hit never makes.
    const char *dumping = std::getenv("KILN_DUMP_TRACES");
    std::string canonical;
    llvm::raw_string_ostream os(canonical);
    appendProgramText(program, os, /*withSizes=*/true);
    llvm::Expected<std::string> key =
        getCacheKey("trace", canonical, "main", options, device);
    if (!key)
      return key.takeError();
    diskKey = std::move(*key);
    if (!dumping || !*dumping)
      exe = loadCachedExecutable(*disk, diskKey, device);
    // Loaded from disk: counted as a compile (TraceCacheStats).
    compiled = static_cast<bool>(exe);
  }
  // 3. A shape-generic executable of its structure on disk.
  if (!exe && disk) {
    exe = loadGeneric(program, options, *disk);
    compiled = static_cast<bool>(exe);
  }
  // 4. A program that differs from an earlier one only in sizes makes their
  // shape-generic executable; a new structure is remembered.
  if (exe && compiled)
    findGeneric(program, options, GenericMode::Remember, compiled);
  else if (!exe)
    exe = findGeneric(program, options, GenericMode::Make, compiled);
  // 5. A compile for these sizes.
  if (!exe) {
    llvm::Expected<std::shared_ptr<const Executable>> made =
        compile(program, options, disk, diskKey);
    if (!made)
      return made.takeError();
    exe = std::move(*made);
    compiled = true;
  }
  double ms = std::chrono::duration<double, std::milli>(
                  std::chrono::steady_clock::now() - start)
                  .count();

  std::lock_guard<std::mutex> lock(mutex);
  if (compiled) {
    ++stats.compiles;
    stats.compileMs += ms;
  }
  Entry entry{key, exe, program.entryHashes, {}};
  for (size_t i = 0; i < program.entries.size(); ++i)
    entry.descriptions.push_back(program.describe(static_cast<int32_t>(i)));
  order.push_front(std::move(entry));
  byKey[key] = order.begin();
  while (order.size() > capacity) {
    byKey.erase(order.back().key);
    order.pop_back();
    ++stats.evictions;
  }
  return exe;
}

/// KILN_DYNAMIC=0 compiles every size (read at each miss).
static bool isGenericEnabled() {
  const char *setting = std::getenv("KILN_DYNAMIC");
  return !setting || llvm::StringRef(setting) != "0";
}

/// What names a generic program: its structure, on its device (each
/// device's executables are its own).
static std::string getGenericStructure(const TraceProgram &program,
                                       const CompileOptions &options) {
  // A KILN_REMAT that is neither value fails the compile, with its error.
  llvm::Expected<bool> autoRemat = resolveAutoRemat(options, options.device);
  bool remat = autoRemat && *autoRemat;
  llvm::consumeError(autoRemat.takeError());
  return (options.device == Device::Cuda ? "cuda " : "cpu ") +
         getFloat32MatmulPrecisionName(options.matmulPrecision).str() +
         (remat ? " remat" : "") +
         (remat && options.rematMinBytes
              ? " " + std::to_string(*options.rematMinBytes)
              : "") +
         "\n" + getStructuralForm(program);
}

std::shared_ptr<const Executable>
TraceCache::findGeneric(const TraceProgram &program,
                        const CompileOptions &options, GenericMode mode,
                        bool &compiled) {
  if (!isGenericEnabled())
    return nullptr;
  std::string structure = getGenericStructure(program, options);
  if (mode == GenericMode::Fit) {
    auto it = generics.find(structure);
    if (it == generics.end() || !it->second.executable ||
        !fitsPattern(it->second.pattern, program))
      return nullptr;
    std::lock_guard<std::mutex> lock(mutex);
    ++stats.genericHits;
    return it->second.executable;
  }
  auto [it, isNew] = generics.try_emplace(structure);
  Generic &generic = it->second;
  if (isNew) {
    generic.first = recordShapes(program);
    // As many structures as executables are kept: the oldest goes first.
    genericOrder.push_back(structure);
    if (genericOrder.size() > capacity) {
      generics.erase(genericOrder.front());
      genericOrder.pop_front();
    }
  }
  if (mode == GenericMode::Remember || generic.executable)
    return nullptr;
  // The first program of a structure is generic where kiln::markDynamic
  // says; a later one where its sizes differ from the first's. A few
  // tries: a program whose sizes cannot be named by its parameters' (a
  // concat of two batches) makes none.
  std::optional<std::pair<GenericPattern, DynamicDims>> derived =
      isNew                  ? derivePatternFromMarks(program)
      : generic.failures < 4 ? derivePattern(generic.first, program)
                             : std::nullopt;
  if (!derived) {
    if (!isNew)
      ++generic.failures;
    return nullptr;
  }
  llvm::Expected<std::shared_ptr<const Executable>> executable = [&] {
    // Not every program compiles shape-generic (a reshape that would need
    // two dynamic dims): then its sizes compile one by one, and what the
    // attempt reported is not an error of the program.
    mlir::ScopedDiagnosticHandler quiet(
        &getContext(), [](mlir::Diagnostic &) { return mlir::success(); });
    // Stored on disk with its pattern, for the next process.
    DiskCache *disk = getDiskCacheFor(options, options.device);
    llvm::Expected<std::string> key =
        disk ? getGenericKey(structure, options) : std::string();
    if (!key) {
      llvm::consumeError(key.takeError());
      disk = nullptr;
    }
    std::string header = serializePattern(derived->first);
    return compile(program, options, disk, disk ? *key : "", &derived->second,
                   disk ? std::optional<llvm::StringRef>(header)
                        : std::nullopt);
  }();
  if (!executable) {
    llvm::consumeError(executable.takeError());
    ++generic.failures;
    return nullptr;
  }
  compiled = true;
  generic.executable = std::move(*executable);
  generic.pattern = std::move(derived->first);
  std::lock_guard<std::mutex> lock(mutex);
  ++stats.genericCompiles;
  return generic.executable;
}

llvm::Expected<std::string>
TraceCache::getGenericKey(llvm::StringRef structure,
                          const CompileOptions &options) {
  return getCacheKey("generic-trace", structure, "main", options,
                     options.device);
}

std::shared_ptr<const Executable>
TraceCache::loadGeneric(const TraceProgram &program,
                        const CompileOptions &options, DiskCache &disk) {
  if (!isGenericEnabled())
    return nullptr;
  std::string structure = getGenericStructure(program, options);
  auto known = generics.find(structure);
  if (known != generics.end() && known->second.executable)
    return nullptr;
  llvm::Expected<std::string> key = getGenericKey(structure, options);
  if (!key) {
    llvm::consumeError(key.takeError());
    return nullptr;
  }
  std::string header;
  std::unique_ptr<Executable> loaded =
      loadCachedExecutable(disk, *key, options.device, &header);
  if (!loaded)
    return nullptr;
  std::optional<GenericPattern> pattern = parsePattern(header);
  if (!pattern) {
    llvm::errs() << "kiln: warning: compile cache: a generic program without "
                    "a valid pattern; compiling again\n";
    return nullptr;
  }
  // Another structure of the same key, or sizes it was not made for.
  if (!fitsPattern(*pattern, program))
    return nullptr;
  auto [it, isNew] = generics.try_emplace(structure);
  if (isNew) {
    it->second.first = recordShapes(program);
    genericOrder.push_back(structure);
    if (genericOrder.size() > capacity) {
      generics.erase(genericOrder.front());
      genericOrder.pop_front();
      it = generics.find(structure);
      if (it == generics.end())
        return nullptr;
    }
  }
  it->second.executable = std::shared_ptr<const Executable>(std::move(loaded));
  it->second.pattern = std::move(*pattern);
  std::lock_guard<std::mutex> lock(mutex);
  // Loaded rather than compiled, as disk hits count (TraceCacheStats).
  ++stats.genericCompiles;
  return it->second.executable;
}

llvm::Expected<std::shared_ptr<const Executable>>
TraceCache::compile(const TraceProgram &program, const CompileOptions &options,
                    DiskCache *disk, llvm::StringRef diskKey,
                    const DynamicDims *dynamic,
                    std::optional<llvm::StringRef> diskHeader) {
  mlir::OwningOpRef<mlir::ModuleOp> module =
      importTrace(getContext(), program, "main", dynamic);
  if (!module)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "the trace could not be imported");
  // KILN_DUMP_TRACES=DIR keeps every compiled program, for kiln-opt and
  // kiln-run; before compiling, which lowers the module in place.
  if (const char *dir = std::getenv("KILN_DUMP_TRACES"); dir && *dir) {
    llvm::SmallString<128> path(dir);
    llvm::sys::fs::create_directories(path);
    std::string name;
    llvm::raw_string_ostream(name)
        << "trace-" << llvm::format_hex_no_prefix(program.hash, 16) << ".mlir";
    llvm::sys::path::append(path, name);
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    if (!ec)
      module->print(os);
  }
  llvm::Expected<std::unique_ptr<Executable>> compiled =
      disk ? compileCachedExecutable(*module, "main", options, options.device,
                                     *disk, diskKey, diskHeader)
           : Executable::compile(*module, "main", options);
  if (!compiled)
    return compiled.takeError();
  return std::shared_ptr<const Executable>(std::move(*compiled));
}

std::string TraceCache::explainMiss(const TraceProgram &program) const {
  std::string line = "kiln: trace cache miss (" +
                     std::to_string(program.entries.size()) + " ops)";
  const Entry *closest = nullptr;
  size_t common = 0;
  for (const Entry &entry : order) {
    size_t n = 0;
    while (n < entry.entryHashes.size() && n < program.entryHashes.size() &&
           entry.entryHashes[n] == program.entryHashes[n])
      ++n;
    if (!closest || n > common) {
      closest = &entry;
      common = n;
    }
  }
  if (!closest)
    return line + ": the cache is empty";
  line += ": the closest cached program first differs at %" +
          std::to_string(common) + ": ";
  line += common < program.entries.size()
              ? program.describe(static_cast<int32_t>(common))
              : "(the end: this program is a prefix of it)";
  line += ", where it has ";
  line += common < closest->descriptions.size() ? closest->descriptions[common]
                                                : "nothing more";
  return line;
}
