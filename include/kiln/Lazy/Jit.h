//===- Jit.h - steps captured once, replayed without recording --*- C++ -*-===//
//
// A lazy step records every op on every call; a cache hit still extracts,
// hashes and looks the program up. A captured step does none of that: the
// programs one call materialized (their executables, and where each of
// their parameters came from) are kept, and a replay binds the new inputs'
// buffers to them and runs them.
//
// A StepRecorder watches the materializations on its thread while a step is
// recorded; finish() materializes the step's outputs and returns the
// CapturedStep. Each program parameter is then one of:
//   - an input: a node the caller names as changing from call to call (an
//     argument, a parameter of the model), bound anew on every replay;
//   - a result of an earlier program of the same step;
//   - baked: any other data (a Python number, a constant array made inside
//     the step), the same on every replay.
//
// kiln::Jit wraps a functional step (inputs in, outputs out, as jax.jit):
// the first calls record; once two consecutive calls with the same input
// types capture the same step, later calls replay it. Once two recorded
// calls with inputs of different sizes capture the same step (its programs
// shape-generic: the trace cache's automatic dynamic dims), a call with new
// sizes replays that step too, without recording.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LAZY_JIT_H
#define KILN_LAZY_JIT_H

#include "kiln/Compiler/Executable.h"
#include "kiln/Lazy/Tensor.h"

#include "llvm/ADT/DenseSet.h"

#include <functional>
#include <memory>
#include <optional>

namespace kiln {

/// The programs of one recorded step, replayable on new inputs.
class CapturedStep {
public:
  /// Where a program's parameter, or a step's output, comes from.
  struct Source {
    enum Kind : uint8_t { Input, Result, Baked } kind = Baked;
    /// Input: the input's index. Result: the output's index in `program`.
    int32_t index = 0;
    int32_t program = 0;
    /// Baked: the node, which holds the data.
    NodeRef baked;
  };
  struct Program {
    std::shared_ptr<const Executable> executable;
    std::vector<Source> parameters;
  };

  /// What a replay on the host bound: each program's arguments and where
  /// its outputs go. A caller that keeps one for the next replay of the
  /// same step (one replay at a time) and passes it again saves finding
  /// them again: inputs that are the same nodes as the last replay's (a
  /// training step's state, whose nodes donation keeps) cost a pointer
  /// comparison; only the others (a new batch) are checked and bound. The
  /// caller must hold the last replay's input nodes until it passes the
  /// next replay's, so that a node at the same address is the same node.
  class Binding {
  public:
    Binding();
    ~Binding();
    Binding(const Binding &) = delete;
    Binding &operator=(const Binding &) = delete;
    /// Forgets what was bound: for a caller that let go of a node it bound
    /// without replaying.
    void reset();

  private:
    friend class CapturedStep;
    struct State;
    std::unique_ptr<State> state;
  };

  /// How a replay may reuse buffers (both on the host only; empty: none).
  struct ReplayOptions {
    /// The inputs may have other sizes than the capture's (the same dtypes
    /// and ranks): each program runs only where its arguments fit its
    /// executable (a shape-generic one takes any size of a dynamic dim),
    /// else the replay gives std::nullopt.
    bool otherSizes = false;
    /// Donated inputs (one per input): replacedBy[i] = k says the caller
    /// drops input i for output k after the call (state the step rebinds),
    /// and holds input i's node nowhere else. Where the node is the only
    /// holder of its host data, one program alone reads it, and that
    /// program may write output k into it (the executable's DonationPlan),
    /// output k is computed in that buffer: no allocation, and no second
    /// copy of the state. Input i's node then holds output k: its old value
    /// is lost.
    llvm::ArrayRef<int32_t> replacedBy;
    /// Recycled buffers (one per output, null for none): a node the caller
    /// drops for output k after the call (a `.grad` a step replaces), kept
    /// alive by the caller and held by nothing else, and no input. Where it
    /// holds host data of output k's dtype and static shape that nothing
    /// else holds, output k is written into that buffer and the node holds
    /// it.
    llvm::ArrayRef<const TraceNode *> recycle;
    /// The binding the caller keeps for this step, or null.
    Binding *binding = nullptr;
  };
  /// What a replay computed.
  struct ReplayedOutputs {
    /// Per output: a new node, or null where fromInput or recycled say
    /// which node holds the output (the caller holds those already).
    std::vector<NodeRef> nodes;
    /// Per output: the input whose node holds it (its donated buffer, or
    /// an input the step returns as it is), else -1.
    std::vector<int32_t> fromInput;
    /// Per output: the index in ReplayOptions::recycle of the node that
    /// holds it, else -1.
    std::vector<int32_t> fromRecycled;
  };

  /// Runs the step's programs with `inputs` (one node per input of the
  /// capture, of its dtype and shape; computed first where it is not yet)
  /// and returns the outputs. std::nullopt when the inputs break what the
  /// capture assumed (inputs that were one node are no longer, an input
  /// the programs computed from its recipe was replaced, another device or
  /// f32 matmul precision):
  /// the caller records the step again. Fails on a dtype or shape that is
  /// not the capture's, naming the input, and on a failed run.
  ///
  /// The work per input and output is a few loads and stores: no reference
  /// is counted for a value that is kept (donated state, recycled
  /// gradients), so that a step with hundreds of state tensors replays in
  /// microseconds.
  llvm::Expected<std::optional<ReplayedOutputs>>
  replayNodes(llvm::ArrayRef<NodeRef> inputs,
              const ReplayOptions &options) const;
  /// replayNodes with the outputs as tensors.
  llvm::Expected<std::optional<std::vector<Tensor>>>
  replay(llvm::ArrayRef<NodeRef> inputs, bool otherSizes = false,
         llvm::ArrayRef<int32_t> replacedBy = {}) const;

  /// Whether `other` captured the same step: the same programs, sources,
  /// inputs and outputs (baked data compared by value). With
  /// `otherSizes`, its inputs may have other sizes (the same dtypes and
  /// ranks): the same programs are then shape-generic ones.
  bool isEquivalent(const CapturedStep &other, bool otherSizes = false) const;

  size_t getNumInputs() const { return inputTypes.size(); }
  const std::vector<Source> &getOutputs() const { return outputs; }
  /// The dtype and shape input `i` had when captured.
  DType getInputDType(size_t i) const { return inputTypes[i].dtype; }
  llvm::ArrayRef<int64_t> getInputShape(size_t i) const {
    return inputTypes[i].shape;
  }

private:
  friend class StepRecorder;

  /// replayNodes' halves: the checks of every input (std::nullopt: record;
  /// success: go on), a replay on the device, a binding made anew, one
  /// updated where inputs changed, and a run of a binding.
  llvm::Expected<bool> checkInputs(llvm::ArrayRef<NodeRef> inputs,
                                   bool otherSizes) const;
  /// Whether `inputs` are still the nodes the capture assumed: the pinned
  /// ones, and the aliased pairs one node.
  bool keepsCapturedNodes(llvm::ArrayRef<NodeRef> inputs) const;
  llvm::Expected<std::optional<ReplayedOutputs>>
  replayOnDevice(llvm::ArrayRef<NodeRef> inputs, bool otherSizes) const;
  llvm::Expected<bool> bind(Binding::State &state,
                            llvm::ArrayRef<NodeRef> inputs,
                            const ReplayOptions &options) const;
  llvm::Expected<bool> rebind(Binding::State &state,
                              llvm::ArrayRef<NodeRef> inputs,
                              const ReplayOptions &options) const;
  llvm::Expected<std::optional<ReplayedOutputs>>
  runBound(Binding::State &state) const;

  struct InputType {
    DType dtype;
    llvm::SmallVector<int64_t, 4> shape;
  };
  std::vector<InputType> inputTypes;
  std::vector<bool> inputIsRead;
  /// Per input, where a donated buffer may go: the one program parameter
  /// that reads it ({program, parameter}), or {-1, -1} when none or several
  /// do, or the step returns the input itself.
  std::vector<std::pair<int32_t, int32_t>> donationReads;
  /// Inputs that must still be the node they were when captured: the
  /// programs computed them from their recipe instead of reading them.
  std::vector<std::pair<int32_t, NodeRef>> pinnedInputs;
  /// Pairs of inputs that were one node when captured (a replay binds the
  /// first of the two).
  std::vector<std::pair<int32_t, int32_t>> aliasedInputs;
  std::vector<Program> programs;
  std::vector<Source> outputs;
  Device device = Device::Cpu;
  /// The f32 matmul precision its programs were compiled with: a replay
  /// under another setting records again.
  Float32MatmulPrecision precision = Float32MatmulPrecision::Highest;
};

/// Records the programs that materializations on this thread run, from
/// construction until finish() or destruction. Recorders do not nest.
class StepRecorder {
public:
  StepRecorder();
  ~StepRecorder();
  StepRecorder(const StepRecorder &) = delete;
  StepRecorder &operator=(const StepRecorder &) = delete;

  /// Materializes `outputs` (with one program, if any is not computed yet),
  /// stops recording, and returns the captured step. `inputs` are the
  /// step's inputs as they were when the step began.
  llvm::Expected<std::shared_ptr<CapturedStep>>
  finish(llvm::ArrayRef<NodeRef> inputs, llvm::ArrayRef<Tensor> outputs);

  /// finish() in two halves, for callers that learn the inputs from what
  /// the programs read (getReadNodes): materialize `outputs` and stop
  /// recording; then capture, with outputs that are all computed.
  llvm::Error stop(llvm::ArrayRef<Tensor> outputs);
  std::shared_ptr<CapturedStep> capture(llvm::ArrayRef<NodeRef> inputs,
                                        llvm::ArrayRef<Tensor> outputs) const;

  /// The nodes the programs recorded so far read as data, or computed from
  /// their recipe, that no earlier program of the step computed: the
  /// candidates for inputs.
  llvm::DenseSet<const TraceNode *> getReadNodes() const;

  /// Internal (kiln::sync, through lib/Lazy/ProgramLog.h): a program ran.
  static void noteProgram(const TraceProgram &program,
                          std::shared_ptr<const Executable> executable,
                          llvm::ArrayRef<NodeRef> outputs);

private:
  struct Logged {
    std::shared_ptr<const Executable> executable;
    std::vector<NodeRef> parameters, computed, outputs;
  };
  std::vector<Logged> logged;
  Device device;
  Float32MatmulPrecision precision;
  bool active = true;
};

/// A functional step, `outputs = fn(inputs)`, replayed once captured.
/// Every input is data that may change from call to call (weights,
/// optimizer state, a batch); everything else `fn` uses is baked into the
/// capture. `fn` must record the same ops for the same input types (no
/// control flow on values).
class Jit {
public:
  using StepFn = std::function<std::vector<Tensor>(llvm::ArrayRef<Tensor>)>;
  explicit Jit(StepFn fn) : fn(std::move(fn)) {}

  /// The outputs of `fn(inputs)`, computed: recorded on the first calls
  /// with these input types, replayed once two calls captured the same step.
  llvm::Expected<std::vector<Tensor>> operator()(llvm::ArrayRef<Tensor> inputs);

  int64_t getNumReplays() const { return replays; }
  int64_t getNumRecordedCalls() const { return recordedCalls; }
  /// Replays of the shape-generic step at sizes it was not captured with.
  int64_t getNumGenericReplays() const { return genericReplays; }

private:
  struct Entry {
    std::vector<std::pair<DType, llvm::SmallVector<int64_t, 4>>> types;
    std::shared_ptr<CapturedStep> step;
    bool trusted = false;
  };
  /// A replay of `step` with `inputs`, kept bound for the next replay: the
  /// last inputs are held until then (CapturedStep::Binding).
  struct Bound {
    std::vector<NodeRef> inputs;
    CapturedStep::Binding binding;
  };
  llvm::Expected<std::optional<std::vector<Tensor>>>
  replay(const CapturedStep &step, llvm::ArrayRef<Tensor> inputs,
         bool otherSizes);
  llvm::Expected<std::vector<Tensor>> record(Entry &entry,
                                             llvm::ArrayRef<Tensor> inputs);

  StepFn fn;
  std::vector<Entry> entries;
  /// The last step recorded, and the step that two recorded calls of
  /// different sizes captured alike (replayed at any size it fits).
  std::shared_ptr<CapturedStep> lastRecorded, generic;
  Bound bound;
  int64_t replays = 0, recordedCalls = 0, genericReplays = 0;
};

} // namespace kiln

#endif // KILN_LAZY_JIT_H
