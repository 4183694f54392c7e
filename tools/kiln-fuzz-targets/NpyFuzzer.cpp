//===- NpyFuzzer.cpp - arbitrary bytes as a .npy file ---------------------===//
//
// libFuzzer target: parseNpy must take any bytes, returning a tensor or an
// error with a message; a tensor it returns must hold exactly the elements
// its shape says, and must round-trip: serializeNpy then parseNpy gives
// the same dtype, shape and bytes.
//
//===----------------------------------------------------------------------===//

#include "kiln/Support/Npy.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <cstring>

[[noreturn]] static void fail(const char *what) {
  llvm::errs() << "npy fuzz target: " << what << "\n";
  std::abort();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef bytes(reinterpret_cast<const char *>(data), size);
  llvm::Expected<kiln::HostTensor> tensor = kiln::parseNpy(bytes);
  if (!tensor) {
    std::string message = llvm::toString(tensor.takeError());
    if (message.empty())
      fail("an error without a message");
    return 0;
  }
  int64_t elements = 1;
  for (int64_t dim : tensor->getShape()) {
    if (dim < 0)
      fail("a negative dimension");
    elements *= dim;
  }
  if (elements != tensor->getNumElements())
    fail("the element count is not the shape's product");
  if (tensor->getByteSize() !=
      static_cast<size_t>(elements) * kiln::getDTypeSize(tensor->getDType()))
    fail("the byte count is not elements x the dtype's size");
  std::string again = kiln::serializeNpy(*tensor);
  llvm::Expected<kiln::HostTensor> back = kiln::parseNpy(again);
  if (!back) {
    llvm::consumeError(back.takeError());
    fail("what serializeNpy wrote does not parse");
  }
  if (back->getDType() != tensor->getDType() ||
      back->getShape() != tensor->getShape() ||
      back->getByteSize() != tensor->getByteSize() ||
      (tensor->getByteSize() &&
       std::memcmp(back->getData(), tensor->getData(), tensor->getByteSize())))
    fail("the round trip changed the tensor");
  return 0;
}
