//===- PassStatistics.cpp - pass statistics that survive Release LLVM
//------===//

#include "kiln/Support/PassStatistics.h"

#include "llvm/ADT/STLExtras.h"
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

void kiln::addPassStatistic(llvm::StringRef passName,
                            llvm::Statistic &statistic, llvm::StringRef name,
                            llvm::StringRef description, uint64_t value) {
  statistic += value;
  Registry &registry = getRegistry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  auto it = llvm::find_if(registry.passes, [&](const auto &pass) {
    return pass.first == passName;
  });
  if (it == registry.passes.end()) {
    registry.passes.push_back({passName.str(), {}});
    it = std::prev(registry.passes.end());
  }
  Entry &entry = it->second[name.str()];
  entry.description = description.str();
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
