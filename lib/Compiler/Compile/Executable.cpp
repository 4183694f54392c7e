//===- Executable.cpp - a kiln function compiled for a device -------------===//
//
// The base class's own members. Which executable compiles a module (the
// factory) is CompileExecutable.cpp, above the executables it chooses.
//
//===----------------------------------------------------------------------===//

#include "kiln/Compiler/Executable.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <cstring>

using namespace kiln;
using llvm::SmallVector;

Executable::~Executable() = default;

llvm::Expected<std::vector<HostTensor>>
Executable::run(llvm::ArrayRef<HostTensor> args, RunProfile *profile) const {
  std::vector<const HostTensor *> pointers;
  pointers.reserve(args.size());
  for (const HostTensor &arg : args)
    pointers.push_back(&arg);
  return run(pointers, profile);
}

llvm::Error
Executable::checkDestinations(llvm::ArrayRef<HostTensor *> into) const {
  if (into.size() != outputs.size())
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "@" + entryName + " has " + llvm::Twine(outputs.size()) + " results, " +
            llvm::Twine(into.size()) + " destinations given");
  for (auto [r, target, output] : llvm::enumerate(into, outputs))
    if (target &&
        (target->getDType() != output.dtype ||
         target->getRank() != static_cast<int64_t>(output.shape.size())))
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "result " + llvm::Twine(r) + " of @" + entryName + " is " +
              output.typeString + ", its destination " +
              target->getTypeString());
  return llvm::Error::success();
}

llvm::Expected<std::vector<HostTensor>>
Executable::runInto(llvm::ArrayRef<const HostTensor *> args,
                    llvm::ArrayRef<HostTensor *> into, RunProfile *profile,
                    const std::vector<bool> *) const {
  // Computed apart, then copied: safe whatever `into` holds.
  if (llvm::Error e = checkDestinations(into))
    return std::move(e);
  llvm::Expected<std::vector<HostTensor>> results = run(args, profile);
  if (!results)
    return results.takeError();
  for (auto [r, target] : llvm::enumerate(into)) {
    if (!target)
      continue;
    HostTensor &result = (*results)[r];
    if (result.getShape() != target->getShape())
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "result " + llvm::Twine(r) + " of @" + entryName + " is " +
              result.getTypeString() + ", its destination " +
              target->getTypeString());
    std::memcpy(target->getData(), result.getData(), result.getByteSize());
    result = HostTensor();
  }
  return results;
}

std::vector<bool>
Executable::findDirectWrites(llvm::ArrayRef<const HostTensor *> args,
                             llvm::ArrayRef<HostTensor *> into) const {
  struct Span {
    const char *begin, *end;
    size_t output;
  };
  auto spanOf = [](const HostTensor &t) {
    const char *begin = static_cast<const char *>(t.getData());
    return std::make_pair(begin, begin + t.getByteSize());
  };
  SmallVector<Span> spans;
  for (auto [r, target] : llvm::enumerate(into))
    if (target && target->getByteSize()) {
      auto [begin, end] = spanOf(*target);
      spans.push_back({begin, end, r});
    }
  llvm::sort(spans,
             [](const Span &a, const Span &b) { return a.begin < b.begin; });
  std::vector<bool> conflict(into.size(), false);
  // Destinations that overlap each other (sorted by start: any overlap
  // shows against the furthest-reaching one before).
  for (size_t i = 1, reach = 0; i < spans.size(); ++i) {
    if (spans[i].begin < spans[reach].end)
      conflict[spans[i].output] = conflict[spans[reach].output] = true;
    if (spans[i].end > spans[reach].end)
      reach = i;
  }
  std::vector<int64_t> donated(into.size(), -1);
  for (auto [q, arg] : llvm::enumerate(args)) {
    if (!arg->getByteSize())
      continue;
    auto [begin, end] = spanOf(*arg);
    // The destinations starting before the input's end, latest first;
    // those that also end after its start overlap it.
    auto it = llvm::partition_point(
        spans, [&](const Span &s) { return s.begin < end; });
    for (auto back = std::make_reverse_iterator(it); back != spans.rend();
         ++back) {
      const Span &s = *back;
      if (s.end <= begin) {
        // Destinations that do not overlap each other end in order.
        if (!conflict[s.output])
          break;
        continue;
      }
      bool same = s.begin == begin && s.end == end && donated[s.output] < 0;
      if (same)
        donated[s.output] = static_cast<int64_t>(q);
      else
        conflict[s.output] = true;
    }
  }
  std::vector<bool> direct(into.size(), false);
  for (size_t r = 0; r < into.size(); ++r)
    direct[r] =
        into[r] && !conflict[r] &&
        (donated[r] < 0 || donation.allows(static_cast<size_t>(donated[r]), r));
  return direct;
}

llvm::Expected<std::vector<std::shared_ptr<const DeviceValue>>>
Executable::runOnDevice(llvm::ArrayRef<const DeviceValue *>, RunProfile *,
                        llvm::StringRef) const {
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      "@" + entryName + " was compiled for the cpu: it runs on host tensors");
}

void RunProfile::addCall(llvm::StringRef name, double ns) {
  // Few distinct callees: a linear search keeps the first-called order.
  auto it = llvm::find_if(calls, [&](const Call &c) { return c.name == name; });
  if (it == calls.end()) {
    calls.push_back({name.str(), 0, 0});
    it = std::prev(calls.end());
  }
  ++it->calls;
  it->ns += ns;
}
