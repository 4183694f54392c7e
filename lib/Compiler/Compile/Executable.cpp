//===- Executable.cpp - a kiln function compiled for a device -------------===//
//
// The base class's own members. Which executable compiles a module (the
// factory) is CompileExecutable.cpp, above the executables it chooses.
//
//===----------------------------------------------------------------------===//

#include "kiln/Compiler/Executable.h"

#include "llvm/ADT/STLExtras.h"

#include <cstring>

using namespace kiln;

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
                    llvm::ArrayRef<HostTensor *> into,
                    RunProfile *profile) const {
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
