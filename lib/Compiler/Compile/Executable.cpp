//===- Executable.cpp - a kiln function compiled for a device -------------===//
//
// The base class's own members. Which executable compiles a module (the
// factory) is CompileExecutable.cpp, above the executables it chooses.
//
//===----------------------------------------------------------------------===//

#include "kiln/Compiler/Executable.h"

#include "llvm/ADT/STLExtras.h"

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
