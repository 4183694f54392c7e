//===- HostProgram.h - the entry's host code as a list of steps -*- C++ -*-===//
//
// After bufferization and kernel outlining, the entry of a program only
// sequences work: it allocates and frees buffers, takes views of them,
// calls kernels and runtime functions (BLAS) and copies. A HostProgram
// records that sequence as steps over buffer slots; the runtime's executor
// (kiln_rt_program.h) reads its bytes and runs them. The host code is then
// never lowered to LLVM or compiled: compile time grows with the number of
// distinct kernels, not with the length of the program (an unrolled LSTM's
// 800 launches). Dynamic dims are sizes in registers: the inputs' dims, and
// index steps computing others from them (the shape function's checks and
// result dims first, then offsets and sizes as the host code computes
// them). Entries it cannot describe (control flow) keep the JIT-compiled
// host code.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_COMPILE_HOSTPROGRAM_H
#define KILN_COMPILER_COMPILE_HOSTPROGRAM_H

#include "kiln/Compiler/Executable.h"
#include "kiln/Support/HostTensor.h"
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

struct ShapeFunction;

class HostProgram {
public:
  /// A size: itself when >= 0; when < 0, the value of register -1 - operand.
  using Operand = int64_t;
  static Operand getRegisterOperand(int32_t index) { return -1 - index; }

  /// A strided view of a buffer slot, in elements.
  struct View {
    int32_t slot = -1;
    Operand offset = 0;
    std::vector<Operand> sizes, strides;
    int64_t elementBytes = 0;
    /// Whether a CPU kernel takes it as a memref descriptor (a dynamic
    /// kernel argument) rather than one pointer.
    bool descriptor = false;
  };
  /// An argument of the entry: its element size and dims.
  struct Argument {
    int64_t elementBytes = 0;
    std::vector<Operand> dims;
  };

  /// Describes `entry` (memref arguments: `numInputs` inputs, then the
  /// results as out-params) or says why it cannot. An entry with dynamic
  /// dims needs its `shapes`, whose checks and result dims it computes
  /// first, their errors naming the entry.
  static llvm::Expected<HostProgram> build(mlir::func::FuncOp entry,
                                           unsigned numInputs,
                                           const ShapeFunction *shapes);

  /// The program as versioned bytes (HostProgramFormat.cpp), as the
  /// runtime's kiln_rt_program_create reads them.
  std::string serialize() const;

  /// The kernels and runtime functions the steps call, by symbol name.
  std::vector<std::string> getKernelNames() const;
  std::vector<std::string> getRuntimeFunctionNames() const;

  /// Kernel: a CPU kernel call; Launch: a GPU kernel launch
  /// (gpu.launch_func); Index: a size from others; Check: sizes that must
  /// agree; Collective: a collective across ranks starts (callee: its
  /// kiln_rt_dist_kind, op: its reduction, lhs: its dim, rhs: its group;
  /// slot: its request, or -1 when it ends where it starts);
  /// CollectiveWait: the collective of request `slot` ends.
  enum class StepKind {
    Alloc,
    Free,
    Kernel,
    RuntimeCall,
    Copy,
    Launch,
    Index,
    Check,
    Collective,
    CollectiveWait
  };
  /// The runtime's KILN_INDEX_* and KILN_CHECK_* (program_internal.h).
  enum class IndexOp : uint8_t {
    Add,
    Sub,
    Mul,
    FloorDiv,
    CeilDiv,
    Rem,
    Min,
    Max
  };
  enum class CheckOp : uint8_t { Equal, AtMost };
  struct Step {
    StepKind kind;
    int32_t slot = -1;   // Alloc, Free; Index: the register it defines
    Operand bytes = 0;   // Alloc
    int32_t callee = -1; // Kernel, RuntimeCall, Launch: index into the names
    std::vector<View> views;       // call arguments; Copy: source, target
    Operand grid[3] = {1, 1, 1};   // Launch
    unsigned block[3] = {1, 1, 1}; // Launch
    uint8_t op = 0;                // Index, Check
    Operand lhs = 0, rhs = 0;      // Index, Check
    std::string message; // Check: what disagrees, naming the entry and op
  };
  /// A buffer slot that holds constant data (a memref.global).
  struct Constant {
    int32_t slot;
    std::vector<char> data;
  };

  llvm::ArrayRef<Step> getSteps() const { return steps; }
  llvm::ArrayRef<Argument> getArguments() const { return arguments; }
  int32_t getNumArguments() const { return numArguments; }
  /// Whether a step launches GPU kernels.
  bool hasLaunches() const;
  /// Whether a step is a collective across ranks.
  bool hasCollectives() const;
  /// Splits each collective into a start and a wait, as far apart as their
  /// buffers allow, so that the steps between overlap the communication
  /// (CollectiveSchedule.cpp).
  void scheduleCollectives();

private:
  friend class HostProgramBuilder;
  int32_t numArguments = 0, numInputs = 0, numSlots = 0;
  std::vector<Argument> arguments;
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

/// Sets `stats`' host steps and memory plan from `program`'s.
void setProgramStats(CompileStats &stats, const kiln_rt_program *program);

/// The dims of `inputs`, flattened, as a run of a program with dynamic dims
/// takes them; empty for a static program.
std::vector<int64_t> getInputDims(const kiln_rt_program *program,
                                  llvm::ArrayRef<const HostTensor *> inputs);
std::vector<int64_t>
getInputDims(const kiln_rt_program *program,
             llvm::ArrayRef<llvm::ArrayRef<int64_t>> inputShapes);

/// The shapes of a run's results: the `outputs`', their dynamic dims as
/// the program computes them from the inputs' (whose checks fail with the
/// op's message).
llvm::Expected<std::vector<llvm::SmallVector<int64_t, 4>>>
getProgramResultShapes(const kiln_rt_program *program,
                       llvm::ArrayRef<TensorSignature> outputs,
                       llvm::ArrayRef<llvm::ArrayRef<int64_t>> inputShapes);

/// Uninitialized results of a run of `program` on `inputs`: of the
/// `outputs`' shapes, their dynamic dims as the program computes them from
/// the inputs' (whose checks fail with the op's message).
llvm::Expected<std::vector<HostTensor>>
createProgramResults(const kiln_rt_program *program,
                     llvm::ArrayRef<TensorSignature> outputs,
                     llvm::ArrayRef<const HostTensor *> inputs);

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

#endif // KILN_COMPILER_COMPILE_HOSTPROGRAM_H
