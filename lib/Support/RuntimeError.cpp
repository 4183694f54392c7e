//===- RuntimeError.cpp - the runtime's failures as llvm::Error -----------===//

#include "Support/RuntimeError.h"

#include <string>

using namespace kiln;

llvm::Error kiln::takeRuntimeError(kiln_rt_status status,
                                   llvm::StringRef what) {
  if (!status)
    return llvm::Error::success();
  std::string message = kiln_rt_status_message(status);
  // A failure always has a message; the code's name, should one not.
  if (message.empty())
    message = kiln_rt_status_string(kiln_rt_status_code_of(status));
  kiln_rt_status_free(status);
  if (!what.empty())
    message = what.str() + ": " + message;
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}
