//===- ReplayMain.cpp - run a fuzz target on files, without libFuzzer -----===//
//
// A build without -DKILN_FUZZ=ON links each target with this main instead
// of libFuzzer's: it runs the target once on every file named (a folder:
// every file in it, in name order), so that the checked-in corpora replay
// in every build. Arguments that start with '-' (libFuzzer's flags) are
// ignored.
//
//===----------------------------------------------------------------------===//

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv) {
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg(argv[i]);
    if (arg.starts_with("-"))
      continue;
    if (!llvm::sys::fs::is_directory(arg)) {
      files.push_back(arg.str());
      continue;
    }
    std::vector<std::string> inFolder;
    std::error_code ec;
    for (llvm::sys::fs::directory_iterator it(arg, ec), end; it != end && !ec;
         it.increment(ec))
      if (!llvm::sys::fs::is_directory(it->path()))
        inFolder.push_back(it->path());
    if (ec) {
      llvm::errs() << argv[0] << ": cannot read '" << arg
                   << "': " << ec.message() << "\n";
      return 1;
    }
    std::sort(inFolder.begin(), inFolder.end());
    files.insert(files.end(), inFolder.begin(), inFolder.end());
  }
  for (const std::string &file : files) {
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
        llvm::MemoryBuffer::getFile(file, /*IsText=*/false,
                                    /*RequiresNullTerminator=*/false);
    if (!buffer) {
      llvm::errs() << argv[0] << ": cannot read '" << file
                   << "': " << buffer.getError().message() << "\n";
      return 1;
    }
    LLVMFuzzerTestOneInput(
        reinterpret_cast<const uint8_t *>((*buffer)->getBufferStart()),
        (*buffer)->getBufferSize());
  }
  llvm::outs() << argv[0] << ": " << files.size() << " inputs replayed\n";
  return 0;
}
