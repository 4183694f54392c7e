//===- TargetCpu.cpp - the CPU that compiled kernels target ---------------===//

#include "Compiler/Compile/TargetCpu.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include <algorithm>
#include <cstdlib>
#include <memory>

using namespace kiln;

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// `features` as "+name"/"-name", sorted by name (a map's order is not the
/// features' own).
static std::vector<std::string>
toSortedList(const llvm::StringMap<bool> &features) {
  std::vector<std::string> names;
  for (const auto &feature : features)
    names.push_back(feature.getKey().str());
  std::sort(names.begin(), names.end());
  std::vector<std::string> list;
  for (const std::string &name : names)
    list.push_back((features.lookup(name) ? "+" : "-") + name);
  return list;
}

/// Whether compiled kernels may use feature `name` without asking for it:
/// the vector and scalar arithmetic extensions. System instructions (pku,
/// shstk, enqcmd, ...) are never emitted for kernels, and virtual machines
/// often hide them, so a model that has them still runs here.
static bool isCodegenFeature(llvm::StringRef name) {
  for (llvm::StringRef prefix :
       {"sse", "ssse3", "avx", "fma", "f16c", "bmi", "lzcnt", "popcnt", "movbe",
        "gfni", "vaes", "vpclmulqdq", "evex512", "amx"})
    if (name.starts_with(prefix))
      return true;
  return false;
}

/// The instruction-set features of CPU model `name`: the host's feature
/// names (every ISA feature LLVM detects), each set as the model has it.
static llvm::Expected<TargetCpu> describeModel(llvm::StringRef name) {
  llvm::InitializeNativeTarget();
  std::string triple = llvm::sys::getProcessTriple();
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(llvm::Triple(triple), error);
  if (!target)
    return makeError("KILN_CPU: " + error);
  // Asked of a generic subtarget first: creating one for an unknown name
  // prints LLVM's own warning.
  std::unique_ptr<llvm::MCSubtargetInfo> generic(
      target->createMCSubtargetInfo(llvm::Triple(triple), "generic", ""));
  std::unique_ptr<llvm::MCSubtargetInfo> subtarget;
  if (generic && generic->isCPUStringValid(name))
    subtarget.reset(
        target->createMCSubtargetInfo(llvm::Triple(triple), name, ""));
  if (!subtarget)
    return makeError("KILN_CPU=" + name + " is not a CPU model LLVM knows (" +
                     "e.g. x86-64-v2, x86-64-v3, skylake-avx512, " +
                     "emeraldrapids); unset it to compile for this CPU");
  llvm::StringMap<bool> host = llvm::sys::getHostCPUFeatures();
  llvm::StringMap<bool> model;
  for (const auto &feature : host)
    model[feature.getKey()] = false;
  for (const llvm::SubtargetFeatureKV &kv :
       subtarget->getAllProcessorFeatures())
    if (subtarget->getFeatureBits().test(kv.Value) && host.count(kv.Key))
      model[kv.Key] = true;
  std::vector<std::string> missing;
  for (const auto &feature : model)
    if (feature.getValue() && !host.lookup(feature.getKey()) &&
        isCodegenFeature(feature.getKey()))
      missing.push_back(feature.getKey().str());
  if (!missing.empty()) {
    std::sort(missing.begin(), missing.end());
    std::string names;
    for (const std::string &m : missing)
      names += (names.empty() ? "" : ", ") + m;
    return makeError("KILN_CPU=" + name + " uses " + names +
                     ", which this CPU lacks: its kernels could not run " +
                     "here; name an older model or unset KILN_CPU");
  }
  TargetCpu cpu;
  cpu.name = name.str();
  cpu.features = toSortedList(model);
  cpu.forced = true;
  return cpu;
}

llvm::Expected<const TargetCpu &> kiln::getTargetCpu() {
  // Read once; an error is kept as its message, for every caller.
  struct Choice {
    TargetCpu cpu;
    std::string error;
  };
  static const Choice choice = [] {
    Choice c;
    const char *forced = std::getenv("KILN_CPU");
    if (forced && *forced) {
      llvm::Expected<TargetCpu> model = describeModel(forced);
      if (model)
        c.cpu = std::move(*model);
      else
        c.error = llvm::toString(model.takeError());
      return c;
    }
    c.cpu.name = llvm::sys::getHostCPUName().str();
    c.cpu.features = toSortedList(llvm::sys::getHostCPUFeatures());
    return c;
  }();
  if (!choice.error.empty())
    return makeError(choice.error);
  return choice.cpu;
}
