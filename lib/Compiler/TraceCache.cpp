//===- TraceCache.cpp - compiled executables by trace program -------------===//

#include "Compiler/TraceCache.h"
#include "Compiler/CachedCompile.h"
#include "Compiler/TraceImporter.h"
#include "kiln/Pipelines/Pipelines.h"

#include "mlir/IR/MLIRContext.h"
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

/// `program` as text that determines it entirely (the compile cache's key:
/// unlike the 64-bit hash, equal text is an equal program): each entry's
/// op, dtype, shape, attributes, scalar bits, whether it is a parameter,
/// its operands and a Vjp's callee; then the parameters and outputs.
static void appendCanonicalForm(const TraceProgram &program,
                                llvm::raw_ostream &os) {
  for (const TraceProgram::Entry &entry : program.entries) {
    const TraceNode &node = *entry.node;
    uint64_t scalar;
    double value = node.getScalar();
    std::memcpy(&scalar, &value, sizeof(scalar));
    os << static_cast<int>(node.getOp()) << " "
       << static_cast<int>(node.getDType()) << " [";
    for (int64_t dim : node.getShape())
      os << dim << ",";
    os << "] {";
    for (int64_t attr : node.getAttrs())
      os << attr << ",";
    os << "} " << scalar << (entry.isParameter ? " p (" : " (");
    for (int32_t operand : entry.operands)
      os << operand << ",";
    os << ")";
    if (node.getCallee()) {
      os << " callee{";
      appendCanonicalForm(*node.getCallee(), os);
      os << "}";
    }
    os << ";";
  }
  os << " params";
  for (int32_t p : program.parameters)
    os << " " << p;
  os << " outputs";
  for (int32_t o : program.outputs)
    os << " " << o;
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
TraceCache::get(const TraceProgram &program, Device device) {
  if (device == Device::Auto) {
    llvm::Expected<Device> resolved = resolveDevice(device);
    if (!resolved)
      return resolved.takeError();
    device = *resolved;
  }
  // The device in the key's low bit: a program compiles once per device.
  uint64_t key = (program.hash << 1) | (device == Device::Cuda ? 1 : 0);
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
  // The compile cache on disk, keyed by the trace: a hit needs no MLIR.
  CompileCache *disk = getCompileCacheFor(options, device);
  std::string diskKey;
  std::shared_ptr<const Executable> exe;
  if (disk) {
    // KILN_DUMP_TRACES writes each program as it is imported: it needs the
    // module, which a hit never makes.
    const char *dumping = std::getenv("KILN_DUMP_TRACES");
    std::string canonical;
    llvm::raw_string_ostream os(canonical);
    appendCanonicalForm(program, os);
    llvm::Expected<std::string> key =
        getCacheKey("trace", canonical, "main", options, device);
    if (!key)
      return key.takeError();
    diskKey = std::move(*key);
    if (!dumping || !*dumping)
      exe = loadCachedExecutable(*disk, diskKey, device);
  }
  if (!exe) {
    llvm::Expected<std::shared_ptr<const Executable>> compiled =
        compile(program, options, disk, diskKey);
    if (!compiled)
      return compiled.takeError();
    exe = std::move(*compiled);
  }
  double ms = std::chrono::duration<double, std::milli>(
                  std::chrono::steady_clock::now() - start)
                  .count();

  std::lock_guard<std::mutex> lock(mutex);
  ++stats.compiles;
  stats.compileMs += ms;
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

llvm::Expected<std::shared_ptr<const Executable>>
TraceCache::compile(const TraceProgram &program, const CompileOptions &options,
                    CompileCache *disk, llvm::StringRef diskKey) {
  mlir::OwningOpRef<mlir::ModuleOp> module = importTrace(getContext(), program);
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
                                     *disk, diskKey)
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
