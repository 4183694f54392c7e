//===- HostProgram.h - the entry's host code as a list of steps -*- C++ -*-===//
//
// After bufferization and kernel outlining, the entry of a static-shape
// program only sequences work: it allocates and frees buffers, takes
// static views of them, calls kernels and runtime functions (BLAS) and
// copies. A HostProgram records that sequence as steps over buffer slots;
// the runtime's executor (kiln_rt_program.h) reads its bytes and runs them. The
// host code is then never lowered to LLVM or compiled: compile time grows with
// the number of distinct kernels, not with the length of the program (an
// unrolled LSTM's 800 launches). Entries it cannot describe (dynamic shapes,
// control flow) keep the JIT-compiled host code.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_HOSTPROGRAM_H
#define KILN_COMPILER_HOSTPROGRAM_H

#include "kiln/Compiler/Executable.h"
#include "kiln_rt/kiln_rt_program.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mlir::func {
class FuncOp;
} // namespace mlir::func

namespace kiln {

class HostProgram {
public:
  /// A static strided view of a buffer slot, in elements.
  struct View {
    int32_t slot = -1;
    int64_t offset = 0;
    std::vector<int64_t> sizes, strides;
    int64_t elementBytes = 0;

    int64_t getNumElements() const {
      int64_t n = 1;
      for (int64_t size : sizes)
        n *= size;
      return n;
    }
  };

  /// Describes `entry` (memref arguments: the inputs, then the results as
  /// out-params) or says why it cannot.
  static llvm::Expected<HostProgram> build(mlir::func::FuncOp entry);

  /// The program as versioned bytes (HostProgramFormat.cpp), as the
  /// runtime's kiln_rt_program_create reads them.
  std::string serialize() const;

  /// The kernels and runtime functions the steps call, by symbol name.
  std::vector<std::string> getKernelNames() const;
  std::vector<std::string> getRuntimeFunctionNames() const;

  int64_t getNumSteps() const { return static_cast<int64_t>(steps.size()); }

  /// Kernel: a CPU kernel call; Launch: a GPU kernel launch (gpu.launch_func).
  enum class StepKind { Alloc, Free, Kernel, RuntimeCall, Copy, Launch };
  struct Step {
    StepKind kind;
    int32_t slot = -1;   // Alloc, Free
    int64_t bytes = 0;   // Alloc
    int32_t callee = -1; // Kernel, RuntimeCall, Launch: index into the names
    std::vector<View> views; // call arguments; Copy: source, target
    unsigned grid[3] = {1, 1, 1}, block[3] = {1, 1, 1}; // Launch
  };
  /// A buffer slot that holds constant data (a memref.global).
  struct Constant {
    int32_t slot;
    std::vector<char> data;
  };

  llvm::ArrayRef<Step> getSteps() const { return steps; }
  llvm::ArrayRef<Constant> getConstants() const { return constants; }
  int32_t getNumArguments() const { return numArguments; }
  int32_t getNumSlots() const { return numSlots; }
  /// Whether a step launches GPU kernels.
  bool hasLaunches() const;

private:
  int32_t numArguments = 0, numSlots = 0;
  std::vector<Step> steps;
  std::vector<Constant> constants;
  std::vector<std::string> kernelNames, runtimeNames;
};

/// A host program as the runtime runs it.
struct RuntimeProgramDeleter {
  void operator()(kiln_rt_program *program) const {
    kiln_rt_program_destroy(program);
  }
};
using RuntimeProgram = std::unique_ptr<kiln_rt_program, RuntimeProgramDeleter>;

/// The runtime's program for `bytes` (HostProgram::serialize()).
llvm::Expected<RuntimeProgram> createRuntimeProgram(llvm::StringRef bytes);
/// The error of a failed kiln_rt_program_* call: kiln_rt_last_error().
llvm::Error getRuntimeProgramError(kiln_rt_status status);

/// Adds what the runtime's profile of a run measured to `profile`.
class RuntimeProfile {
public:
  explicit RuntimeProfile(RunProfile *profile);
  /// Null without a profile.
  kiln_rt_profile *get() { return profile ? &counts : nullptr; }
  ~RuntimeProfile();

private:
  RunProfile *profile;
  kiln_rt_profile counts = {};
};

} // namespace kiln

#endif // KILN_COMPILER_HOSTPROGRAM_H
