//===- PassStatistics.cpp - pass statistics that survive Release LLVM -----===//

#include "Support/PassStatistics.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/Format.h"

#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace {
struct Entry {
  std::string description;
  uint64_t value = 0;
};

struct Registry {
  std::mutex mutex;
  // Pass name -> statistic name -> entry; passes in first-report order.
  std::vector<std::pair<std::string, std::map<std::string, Entry>>> passes;
};

Registry &getRegistry() {
  static Registry registry;
  return registry;
}
} // namespace

void kiln::addPassStatistic(mlir::Pass &pass, mlir::Pass::Statistic &statistic,
                            uint64_t value,
                            llvm::ArrayRef<PassStatisticInfo> table) {
  statistic += value;
  // The statistic's position among the pass's, which declares them in
  // Passes.td's order, picks its entry in the table.
  llvm::ArrayRef<mlir::Pass::Statistic *> statistics = pass.getStatistics();
  const auto *position = llvm::find(statistics, &statistic);
  if (position == statistics.end())
    llvm::report_fatal_error("kiln: a statistic recorded for pass '" +
                             pass.getArgument() + "' is not one of its own");
  size_t index = static_cast<size_t>(position - statistics.begin());
  const PassStatisticInfo *info = nullptr;
  for (const PassStatisticInfo &entry : table)
    if (pass.getArgument() == entry.pass && index-- == 0) {
      info = &entry;
      break;
    }
  if (!info)
    llvm::report_fatal_error("kiln: the statistics table of pass '" +
                             pass.getArgument() +
                             "' does not match its Passes.td");

  llvm::StringRef passName = pass.getName();
  Registry &registry = getRegistry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  auto it = llvm::find_if(registry.passes, [&](const auto &recorded) {
    return recorded.first == passName;
  });
  if (it == registry.passes.end()) {
    registry.passes.push_back({passName.str(), {}});
    it = std::prev(registry.passes.end());
  }
  Entry &entry = it->second[info->name];
  entry.description = info->description;
  entry.value += value;
}

bool kiln::hasPassStatistics() {
  Registry &registry = getRegistry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  return !registry.passes.empty();
}

void kiln::printPassStatistics(llvm::raw_ostream &os) {
  Registry &registry = getRegistry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  os << "===" << std::string(73, '-') << "===\n"
     << "                         ... kiln pass statistics ...\n"
     << "===" << std::string(73, '-') << "===\n";
  for (auto &[pass, statistics] : registry.passes) {
    os << pass << "\n";
    for (auto &[name, entry] : statistics)
      os << "  (S) " << entry.value << " " << name << " - " << entry.description
         << "\n";
  }
}
