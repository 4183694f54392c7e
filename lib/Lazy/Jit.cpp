//===- Jit.cpp - steps captured once, replayed without recording ----------===//

#include "kiln/Lazy/Jit.h"
#include "Lazy/CountedRuns.h"
#include "Lazy/ProgramLog.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/Twine.h"

#include <cstdlib>
#include <cstring>
#include <string_view>

using namespace kiln;
using llvm::ArrayRef;
using llvm::SmallVector;

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// The recorders active on this thread, innermost last: each sees every
/// program, so that a step recorded inside another is part of both.
static thread_local std::vector<StepRecorder *> activeRecorders;

//===----------------------------------------------------------------------===//
// StepRecorder
//===----------------------------------------------------------------------===//

StepRecorder::StepRecorder()
    : device(getDevice()), precision(getFloat32MatmulPrecision()) {
  detail::setProgramListener(&StepRecorder::noteProgram);
  activeRecorders.push_back(this);
}

StepRecorder::~StepRecorder() {
  if (active)
    llvm::erase(activeRecorders, this);
}

void StepRecorder::noteProgram(const TraceProgram &program,
                               std::shared_ptr<const Executable> executable,
                               ArrayRef<NodeRef> outputs) {
  if (activeRecorders.empty())
    return;
  Logged logged{std::move(executable), {}, {}, outputs.vec()};
  for (int32_t p : program.parameters)
    logged.parameters.push_back(program.entries[p].node);
  for (const TraceProgram::Entry &entry : program.entries)
    if (!entry.isParameter)
      logged.computed.push_back(entry.node);
  llvm::append_range(logged.computed, program.folded);
  for (StepRecorder *recorder : activeRecorders)
    recorder->logged.push_back(logged);
}

llvm::DenseSet<const TraceNode *> StepRecorder::getReadNodes() const {
  llvm::DenseSet<const TraceNode *> computedBefore, read;
  for (const Logged &program : logged) {
    for (const NodeRef &node : program.parameters)
      if (!computedBefore.contains(node.get()))
        read.insert(node.get());
    for (const NodeRef &node : program.computed)
      read.insert(node.get());
    for (const NodeRef &node : program.outputs)
      computedBefore.insert(node.get());
  }
  return read;
}

llvm::Expected<std::shared_ptr<CapturedStep>>
StepRecorder::finish(ArrayRef<NodeRef> inputs, ArrayRef<Tensor> outputs) {
  if (llvm::Error e = stop(outputs))
    return std::move(e);
  return capture(inputs, outputs);
}

llvm::Error StepRecorder::stop(ArrayRef<Tensor> outputs) {
  llvm::Error synced = active ? sync(outputs) : llvm::Error::success();
  if (active)
    llvm::erase(activeRecorders, this);
  active = false;
  return synced;
}

std::shared_ptr<CapturedStep>
StepRecorder::capture(ArrayRef<NodeRef> inputs,
                      ArrayRef<Tensor> outputs) const {
  auto step = std::make_shared<CapturedStep>();
  step->device = device;
  step->precision = precision;
  llvm::DenseMap<const TraceNode *, int32_t> inputIndex;
  for (auto [i, node] : llvm::enumerate(inputs)) {
    step->inputTypes.push_back(
        {node->getDType(), llvm::SmallVector<int64_t, 4>(node->getShape())});
    auto [it, inserted] =
        inputIndex.try_emplace(node.get(), static_cast<int32_t>(i));
    if (!inserted)
      step->aliasedInputs.push_back({it->second, static_cast<int32_t>(i)});
  }
  step->inputIsRead.assign(inputs.size(), false);

  // Results first: an input computed by an earlier program of the step is
  // that program's result from then on.
  llvm::DenseMap<const TraceNode *, std::pair<int32_t, int32_t>> resultIndex;
  auto resolve = [&](const NodeRef &node) {
    CapturedStep::Source source;
    if (auto it = resultIndex.find(node.get()); it != resultIndex.end()) {
      source.kind = CapturedStep::Source::Result;
      source.program = it->second.first;
      source.index = it->second.second;
    } else if (auto it = inputIndex.find(node.get()); it != inputIndex.end()) {
      source.kind = CapturedStep::Source::Input;
      source.index = it->second;
    } else {
      source.baked = node;
    }
    return source;
  };
  llvm::DenseSet<int32_t> pinned;
  for (auto [p, program] : llvm::enumerate(logged)) {
    CapturedStep::Program captured{program.executable, {}};
    for (const NodeRef &node : program.parameters) {
      captured.parameters.push_back(resolve(node));
      if (captured.parameters.back().kind == CapturedStep::Source::Input)
        step->inputIsRead[captured.parameters.back().index] = true;
    }
    for (const NodeRef &node : program.computed)
      if (auto it = inputIndex.find(node.get()); it != inputIndex.end())
        if (pinned.insert(it->second).second)
          step->pinnedInputs.push_back({it->second, node});
    for (auto [k, node] : llvm::enumerate(program.outputs))
      resultIndex.try_emplace(node.get(), static_cast<int32_t>(p),
                              static_cast<int32_t>(k));
    step->programs.push_back(std::move(captured));
  }
  for (const Tensor &output : outputs)
    step->outputs.push_back(resolve(output.getNode()));
  // Where each input may be donated: read by one program parameter, and
  // not returned as it is.
  step->donationReads.assign(inputs.size(), {-1, -1});
  std::vector<int> reads(inputs.size(), 0);
  for (auto [p, program] : llvm::enumerate(step->programs))
    for (auto [q, source] : llvm::enumerate(program.parameters))
      if (source.kind == CapturedStep::Source::Input &&
          ++reads[source.index] == 1)
        step->donationReads[source.index] = {static_cast<int32_t>(p),
                                             static_cast<int32_t>(q)};
  for (const CapturedStep::Source &output : step->outputs)
    if (output.kind == CapturedStep::Source::Input)
      reads[output.index] = 2;
  for (size_t i = 0; i < inputs.size(); ++i)
    if (reads[i] != 1)
      step->donationReads[i] = {-1, -1};
  return step;
}

//===----------------------------------------------------------------------===//
// CapturedStep
//===----------------------------------------------------------------------===//

/// Whether `args` (host or device values) have the dtypes and ranks of
/// `signature`, and its static dims.
template <typename Value>
static bool fitsSignature(ArrayRef<TensorSignature> signature,
                          ArrayRef<const Value *> args) {
  if (signature.size() != args.size())
    return false;
  for (auto [sig, arg] : llvm::zip(signature, args)) {
    ArrayRef<int64_t> shape = arg->getShape();
    if (arg->getDType() != sig.dtype || shape.size() != sig.shape.size())
      return false;
    for (auto [want, have] : llvm::zip(sig.shape, shape))
      if (want >= 0 && want != have)
        return false;
  }
  return true;
}

/// Whether replays write outputs into donated inputs and recycled buffers
/// (KILN_DONATION=0 turns it off, for measuring).
static bool donationEnabled() {
  static const bool enabled = [] {
    const char *value = std::getenv("KILN_DONATION");
    return !value || std::string_view(value) != "0";
  }();
  return enabled;
}

/// Whether `node`'s host value, held by the node alone, may be
/// overwritten: not the caller's borrowed memory, and no device copy that
/// would go stale.
static bool isOnlyHolder(const TraceNode &node) {
  long holders = 0;
  const HostTensor *host = node.peekHostData(&holders);
  return host && holders == 1 && !host->isBorrowed() && !node.hasDeviceData();
}

/// `node`'s host value: its own (no reference taken: the caller holds the
/// node), or one copied from the device into `owned`.
static llvm::Expected<const HostTensor *>
getHostValue(const TraceNode &node, std::shared_ptr<const HostTensor> &owned) {
  if (const HostTensor *host = node.peekHostData())
    return host;
  llvm::Expected<std::shared_ptr<const HostTensor>> host = node.getHostData();
  if (!host)
    return host.takeError();
  if (!*host)
    return makeError("replay: an input without a value");
  owned = std::move(*host);
  return owned.get();
}

/// Where a program's output is written: a donated input's buffer, or a
/// recycled node's.
struct Destination {
  HostTensor *buffer = nullptr;
  int32_t input = -1, recycled = -1;
};

struct CapturedStep::Binding::State {
  /// What it was bound for.
  const CapturedStep *step = nullptr;
  bool otherSizes = false;
  std::vector<int32_t> replacedBy;
  std::vector<const TraceNode *> recycle;
  /// Per input: the node bound (compared by address only: the caller holds
  /// it until the next replay), its value when no node holds it (copied
  /// from the device), where the programs read it, and whether it was
  /// offered for donation.
  std::vector<const TraceNode *> inputs;
  std::vector<std::shared_ptr<const HostTensor>> ownedInputs;
  std::vector<std::vector<std::pair<int32_t, int32_t>>> inputUses;
  std::vector<bool> offered;
  /// Per program: its arguments (those that are earlier programs' results
  /// are set by each run, at resultArgs), and where its outputs go.
  std::vector<std::vector<const HostTensor *>> args;
  std::vector<std::vector<std::pair<int32_t, const Source *>>> resultArgs;
  std::vector<std::vector<HostTensor *>> buffers;
  std::vector<std::vector<Destination>> into;
  /// Per program, per output not written into a buffer: its position
  /// among the program's new results (else -1), and how many there are.
  std::vector<std::vector<int32_t>> freshIndex;
  std::vector<int32_t> numFresh;
  std::vector<std::shared_ptr<const HostTensor>> ownedBaked;
  /// The inputs and recycled nodes (by output) whose buffers are written,
  /// which must still hold their values alone; those offered that did not,
  /// bound anew once one does.
  std::vector<int32_t> donatedInputs, declinedInputs, recycledOutputs,
      declinedOutputs;
  int64_t donatedBuffers = 0, donatedBytes = 0;
  /// The outputs as ReplayedOutputs gives them: those a node the caller
  /// holds has, the new results (an output that is a result an earlier
  /// output is, `sameAs` it), and the baked ones.
  std::vector<int32_t> fromInput, fromRecycled;
  struct NewResult {
    int32_t output, program, index, sameAs;
  };
  std::vector<NewResult> newResults;
  std::vector<std::pair<int32_t, NodeRef>> bakedOutputs;
  /// Per program: which outputs its run writes straight into their
  /// buffers (Executable::findDirectWrites), worked out at its first run
  /// after a bind and kept while each input that changes (a new batch)
  /// shares no byte with a buffer. Its other arguments keep their buffers,
  /// and earlier programs' new results are new allocations, made while the
  /// buffers are held: neither can come to overlap one.
  struct DirectWrites {
    bool known = false;
    std::vector<bool> direct;
    /// The buffers' [begin, end) sorted by begin, with the furthest end
    /// of each prefix.
    std::vector<std::pair<const char *, const char *>> spans;
    std::vector<const char *> reach;
    /// Per argument: whether it shared a byte with a buffer then (an
    /// input that did and changes is worked out again, to write in place
    /// once it no longer does).
    std::vector<bool> argOverlaps;
    void find(const Executable &executable, ArrayRef<const HostTensor *> args,
              ArrayRef<HostTensor *> into);
    bool overlaps(const HostTensor &value) const;
  };
  std::vector<DirectWrites> directWrites;
};

void CapturedStep::Binding::State::DirectWrites::find(
    const Executable &executable, ArrayRef<const HostTensor *> args,
    ArrayRef<HostTensor *> into) {
  direct = executable.findDirectWrites(args, into);
  spans.clear();
  for (HostTensor *buffer : into)
    if (buffer && buffer->getByteSize()) {
      const char *begin = static_cast<const char *>(buffer->getData());
      spans.emplace_back(begin, begin + buffer->getByteSize());
    }
  llvm::sort(spans);
  reach.clear();
  for (const auto &[begin, end] : spans)
    reach.push_back(reach.empty() ? end : std::max(reach.back(), end));
  argOverlaps.assign(args.size(), false);
  for (auto [q, arg] : llvm::enumerate(args))
    argOverlaps[q] = arg && overlaps(*arg);
  known = true;
}

bool CapturedStep::Binding::State::DirectWrites::overlaps(
    const HostTensor &value) const {
  if (!value.getByteSize())
    return false;
  const char *begin = static_cast<const char *>(value.getData());
  const char *end = begin + value.getByteSize();
  // The buffers starting before `end`: one of them reaches past `begin`.
  size_t before =
      llvm::partition_point(
          spans, [&](const auto &span) { return span.first < end; }) -
      spans.begin();
  return before > 0 && reach[before - 1] > begin;
}

CapturedStep::Binding::Binding() = default;
CapturedStep::Binding::~Binding() = default;
void CapturedStep::Binding::reset() { state.reset(); }

/// Fails when `node` is not of input `i`'s captured type (with
/// `otherSizes`, its dtype and rank).
static llvm::Error checkInputType(size_t i, const NodeRef &node, DType dtype,
                                  ArrayRef<int64_t> shape, bool otherSizes) {
  if (node && node->getDType() == dtype &&
      (otherSizes ? node->getShape().size() == shape.size()
                  : node->getShape() == shape))
    return llvm::Error::success();
  return makeError(
      "replay: input " + llvm::Twine(i) + " is " +
      (node ? getTensorTypeString(node->getDType(), node->getShape())
            : std::string("missing")) +
      ", but the step was captured with " + getTensorTypeString(dtype, shape));
}

bool CapturedStep::keepsCapturedNodes(ArrayRef<NodeRef> inputs) const {
  for (const auto &[i, node] : pinnedInputs)
    if (inputs[i] != node)
      return false;
  for (auto [a, b] : aliasedInputs)
    if (inputs[a] != inputs[b])
      return false;
  return true;
}

llvm::Expected<bool> CapturedStep::checkInputs(ArrayRef<NodeRef> inputs,
                                               bool otherSizes) const {
  for (auto [i, node, type] : llvm::enumerate(inputs, inputTypes))
    if (llvm::Error e =
            checkInputType(i, node, type.dtype, type.shape, otherSizes))
      return std::move(e);
  if (!keepsCapturedNodes(inputs))
    return false;
  // Read inputs not computed yet (replaced by a recorded expression since
  // the last call) are computed first, together.
  std::vector<Tensor> uncomputed;
  for (size_t i = 0; i < inputs.size(); ++i)
    if (inputIsRead[i] && !inputs[i]->hasValue())
      uncomputed.push_back(Tensor::make(inputs[i]));
  if (!uncomputed.empty())
    if (llvm::Error e = sync(uncomputed))
      return std::move(e);
  return true;
}

llvm::Expected<bool> CapturedStep::bind(Binding::State &state,
                                        ArrayRef<NodeRef> inputs,
                                        const ReplayOptions &options) const {
  state = Binding::State();
  llvm::Expected<bool> fit = checkInputs(inputs, options.otherSizes);
  if (!fit || !*fit)
    return fit;
  size_t numInputs = inputs.size();
  state.otherSizes = options.otherSizes;
  state.replacedBy.assign(options.replacedBy.begin(), options.replacedBy.end());
  state.recycle.assign(options.recycle.begin(), options.recycle.end());
  state.inputs.resize(numInputs);
  state.ownedInputs.resize(numInputs);
  state.inputUses.resize(numInputs);
  state.offered.assign(numInputs, false);
  std::vector<const HostTensor *> inputValues(numInputs);
  for (size_t i = 0; i < numInputs; ++i) {
    state.inputs[i] = inputs[i].get();
    if (!inputIsRead[i])
      continue;
    llvm::Expected<const HostTensor *> host =
        getHostValue(*inputs[i], state.ownedInputs[i]);
    if (!host)
      return host.takeError();
    inputValues[i] = *host;
  }

  // Where outputs go: a donated input's buffer or a recycled node's. At
  // other sizes with several programs, a later program that does not fit
  // means recording after earlier ones ran: nothing is overwritten then.
  state.into.resize(programs.size());
  auto destinationOf = [&](const Source &output) -> Destination * {
    std::vector<Destination> &program = state.into[output.program];
    if (program.empty())
      program.resize(programs[output.program].executable->getOutputs().size());
    Destination &destination = program[output.index];
    return destination.buffer ? nullptr : &destination;
  };
  auto signatureOf = [&](const Source &output) -> const TensorSignature & {
    return programs[output.program].executable->getOutputs()[output.index];
  };
  bool mayOverwrite =
      donationEnabled() && (!options.otherSizes || programs.size() == 1);
  if (mayOverwrite && options.replacedBy.size() == numInputs)
    for (auto [i, k] : llvm::enumerate(options.replacedBy)) {
      if (k < 0 || static_cast<size_t>(k) >= outputs.size() ||
          outputs[k].kind != Source::Result || !inputValues[i])
        continue;
      // Read by one program parameter (and not returned as it is: the
      // caller would read the overwritten value), that of output k's
      // program.
      auto [p, q] = donationReads[i];
      const Source &output = outputs[k];
      const TensorSignature &signature = signatureOf(output);
      if (p < 0 || p != output.program ||
          signature.dtype != inputs[i]->getDType() ||
          signature.shape.size() != inputs[i]->getShape().size() ||
          !programs[p].executable->getDonation().allows(q, output.index))
        continue;
      state.offered[i] = true;
      if (!isOnlyHolder(*inputs[i])) {
        state.declinedInputs.push_back(static_cast<int32_t>(i));
        continue;
      }
      if (Destination *destination = destinationOf(output)) {
        *destination = {const_cast<HostTensor *>(inputValues[i]),
                        static_cast<int32_t>(i), -1};
        state.donatedInputs.push_back(static_cast<int32_t>(i));
        ++state.donatedBuffers;
        state.donatedBytes +=
            static_cast<int64_t>(inputValues[i]->getByteSize());
      }
    }
  if (mayOverwrite && options.recycle.size() == outputs.size())
    for (auto [k, node] : llvm::enumerate(options.recycle)) {
      if (!node || outputs[k].kind != Source::Result)
        continue;
      const TensorSignature &signature = signatureOf(outputs[k]);
      if (signature.dtype != node->getDType() ||
          ArrayRef<int64_t>(signature.shape) != node->getShape())
        continue;
      if (!isOnlyHolder(*node)) {
        state.declinedOutputs.push_back(static_cast<int32_t>(k));
        continue;
      }
      if (Destination *destination = destinationOf(outputs[k])) {
        *destination = {const_cast<HostTensor *>(node->peekHostData()), -1,
                        static_cast<int32_t>(k)};
        state.recycledOutputs.push_back(static_cast<int32_t>(k));
      }
    }

  // Each program's arguments, and where its outputs go.
  state.args.resize(programs.size());
  state.resultArgs.resize(programs.size());
  state.buffers.resize(programs.size());
  for (auto [p, program] : llvm::enumerate(programs)) {
    std::vector<const HostTensor *> &args = state.args[p];
    for (auto [q, source] : llvm::enumerate(program.parameters)) {
      switch (source.kind) {
      case Source::Input:
        args.push_back(inputValues[source.index]);
        state.inputUses[source.index].push_back(
            {static_cast<int32_t>(p), static_cast<int32_t>(q)});
        break;
      case Source::Result:
        args.push_back(nullptr);
        state.resultArgs[p].push_back({static_cast<int32_t>(q), &source});
        break;
      case Source::Baked: {
        std::shared_ptr<const HostTensor> owned;
        llvm::Expected<const HostTensor *> host =
            getHostValue(*source.baked, owned);
        if (!host)
          return host.takeError();
        if (owned)
          state.ownedBaked.push_back(std::move(owned));
        args.push_back(*host);
        break;
      }
      }
    }
    // At other sizes, a program whose arguments do not fit (a static one)
    // means recording (one reading results is checked when it runs).
    if (options.otherSizes && state.resultArgs[p].empty() &&
        !fitsSignature(program.executable->getInputs(),
                       ArrayRef<const HostTensor *>(args)))
      return false;
    for (const Destination &destination : state.into[p])
      state.buffers[p].push_back(destination.buffer);
    size_t numOutputs = program.executable->getOutputs().size();
    int32_t fresh = 0;
    state.freshIndex.emplace_back(numOutputs, -1);
    for (size_t r = 0; r < numOutputs; ++r)
      if (r >= state.buffers[p].size() || !state.buffers[p][r])
        state.freshIndex[p][r] = fresh++;
    state.numFresh.push_back(fresh);
  }

  // The outputs.
  state.fromInput.assign(outputs.size(), -1);
  state.fromRecycled.assign(outputs.size(), -1);
  for (auto [k, source] : llvm::enumerate(outputs)) {
    int32_t output = static_cast<int32_t>(k);
    switch (source.kind) {
    case Source::Input:
      state.fromInput[k] = source.index;
      break;
    case Source::Result: {
      const std::vector<Destination> &into = state.into[source.program];
      if (static_cast<size_t>(source.index) < into.size() &&
          into[source.index].buffer) {
        state.fromInput[k] = into[source.index].input;
        state.fromRecycled[k] = into[source.index].recycled;
        break;
      }
      // One node per result, however many outputs it is.
      int32_t sameAs = -1;
      for (const Binding::State::NewResult &earlier : state.newResults)
        if (earlier.program == source.program &&
            earlier.index == source.index) {
          sameAs = earlier.output;
          break;
        }
      state.newResults.push_back(
          {output, source.program, source.index, sameAs});
      break;
    }
    case Source::Baked:
      state.bakedOutputs.push_back({output, source.baked});
      break;
    }
  }
  state.step = this;
  return true;
}

llvm::Expected<bool> CapturedStep::rebind(Binding::State &state,
                                          ArrayRef<NodeRef> inputs,
                                          const ReplayOptions &options) const {
  if (state.step != this || state.otherSizes != options.otherSizes ||
      state.inputs.size() != inputs.size() ||
      ArrayRef<int32_t>(state.replacedBy) != options.replacedBy ||
      ArrayRef<const TraceNode *>(state.recycle) != options.recycle)
    return false;
  // The inputs that are other nodes than last time (a new batch) are
  // checked and bound; the others were. One offered for donation is bound
  // anew.
  SmallVector<size_t, 8> changed;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].get() == state.inputs[i])
      continue;
    if (state.offered[i] || options.otherSizes || !inputs[i])
      return false;
    changed.push_back(i);
  }
  // The buffers written are still their values' only holders, and those
  // that were not still are not (the recycled nodes are the caller's, the
  // same as last time).
  for (int32_t i : state.donatedInputs)
    if (!isOnlyHolder(*inputs[i]))
      return false;
  for (int32_t i : state.declinedInputs)
    if (isOnlyHolder(*inputs[i]))
      return false;
  for (int32_t k : state.recycledOutputs)
    if (!isOnlyHolder(*options.recycle[k]))
      return false;
  for (int32_t k : state.declinedOutputs)
    if (isOnlyHolder(*options.recycle[k]))
      return false;
  if (changed.empty())
    return true;
  std::vector<Tensor> uncomputed;
  for (size_t i : changed) {
    const InputType &type = inputTypes[i];
    if (llvm::Error e =
            checkInputType(i, inputs[i], type.dtype, type.shape, false))
      return std::move(e);
    if (inputIsRead[i] && !inputs[i]->hasValue())
      uncomputed.push_back(Tensor::make(inputs[i]));
  }
  if (!keepsCapturedNodes(inputs))
    return false;
  if (!uncomputed.empty())
    if (llvm::Error e = sync(uncomputed))
      return std::move(e);
  for (size_t i : changed) {
    state.inputs[i] = inputs[i].get();
    state.ownedInputs[i].reset();
    if (!inputIsRead[i])
      continue;
    llvm::Expected<const HostTensor *> host =
        getHostValue(*inputs[i], state.ownedInputs[i]);
    if (!host)
      return host.takeError();
    for (auto [p, q] : state.inputUses[i]) {
      state.args[p][q] = *host;
      // A new value that shares a byte with a buffer the program writes,
      // or replaces one that did: which outputs go there directly is
      // worked out again.
      if (static_cast<size_t>(p) >= state.directWrites.size())
        continue;
      Binding::State::DirectWrites &writes = state.directWrites[p];
      if (writes.known && (writes.argOverlaps[q] || writes.overlaps(**host)))
        writes.known = false;
    }
  }
  return true;
}

llvm::Expected<std::optional<CapturedStep::ReplayedOutputs>>
CapturedStep::runBound(Binding::State &state) const {
  // Each program's new results, until the outputs hold them.
  std::vector<std::vector<std::shared_ptr<const HostTensor>>> fresh(
      programs.size());
  for (auto [p, program] : llvm::enumerate(programs)) {
    std::vector<const HostTensor *> &args = state.args[p];
    for (auto [q, source] : state.resultArgs[p]) {
      const std::vector<Destination> &into = state.into[source->program];
      bool written = static_cast<size_t>(source->index) < into.size() &&
                     into[source->index].buffer;
      args[q] = written
                    ? into[source->index].buffer
                    : fresh[source->program]
                           [state.freshIndex[source->program][source->index]]
                               .get();
    }
    if (state.otherSizes && !state.resultArgs[p].empty() &&
        !fitsSignature(program.executable->getInputs(),
                       ArrayRef<const HostTensor *>(args)))
      return std::nullopt;
    const std::vector<HostTensor *> &buffers = state.buffers[p];
    state.directWrites.resize(programs.size());
    Binding::State::DirectWrites &writes = state.directWrites[p];
    if (!writes.known)
      writes.find(*program.executable, args, buffers);
    llvm::Expected<std::vector<HostTensor>> ran =
        detail::runCounted(*program.executable, args, buffers, &writes.direct);
    if (!ran)
      return ran.takeError();
    fresh[p].resize(state.numFresh[p]);
    for (auto [r, result] : llvm::enumerate(*ran))
      if (int32_t index = state.freshIndex[p][r]; index >= 0)
        fresh[p][index] = std::make_shared<const HostTensor>(std::move(result));
  }
  ReplayedOutputs replayed;
  replayed.fromInput = state.fromInput;
  replayed.fromRecycled = state.fromRecycled;
  replayed.nodes.resize(outputs.size());
  for (const Binding::State::NewResult &result : state.newResults)
    replayed.nodes[result.output] =
        result.sameAs >= 0
            ? replayed.nodes[result.sameAs]
            : TraceNode::parameter(
                  fresh[result.program]
                       [state.freshIndex[result.program][result.index]],
                  /*recorded=*/false);
  for (const auto &[k, node] : state.bakedOutputs)
    replayed.nodes[k] = node;
  detail::countReplay(state.donatedBuffers, state.donatedBytes);
  return std::optional<ReplayedOutputs>(std::move(replayed));
}

llvm::Expected<std::optional<CapturedStep::ReplayedOutputs>>
CapturedStep::replayOnDevice(ArrayRef<NodeRef> inputs, bool otherSizes) const {
  // Values stay on the device: inputs and baked data are uploaded once per
  // node, results are kept there.
  std::vector<std::shared_ptr<const DeviceValue>> inputValues(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputIsRead[i])
      continue;
    llvm::Expected<std::shared_ptr<const DeviceValue>> value =
        detail::getOnDevice(*inputs[i]);
    if (!value)
      return value.takeError();
    inputValues[i] = std::move(*value);
  }
  std::vector<std::vector<std::shared_ptr<const DeviceValue>>> results(
      programs.size());
  std::vector<std::shared_ptr<const DeviceValue>> baked;
  SmallVector<const DeviceValue *, 16> args;
  for (auto [p, program] : llvm::enumerate(programs)) {
    args.clear();
    baked.clear();
    for (const Source &source : program.parameters) {
      switch (source.kind) {
      case Source::Input:
        args.push_back(inputValues[source.index].get());
        break;
      case Source::Result:
        args.push_back(results[source.program][source.index].get());
        break;
      case Source::Baked: {
        llvm::Expected<std::shared_ptr<const DeviceValue>> value =
            detail::getOnDevice(*source.baked);
        if (!value)
          return value.takeError();
        baked.push_back(std::move(*value));
        args.push_back(baked.back().get());
        break;
      }
      }
    }
    // At other sizes, a program whose arguments do not fit (a static one)
    // means recording: nothing was changed but new tensors.
    if (otherSizes && !fitsSignature(program.executable->getInputs(),
                                     ArrayRef<const DeviceValue *>(args)))
      return std::nullopt;
    llvm::Expected<std::vector<std::shared_ptr<const DeviceValue>>> ran =
        detail::runCountedOnDevice(*program.executable, args,
                                   "a replayed step's program " +
                                       std::to_string(p));
    if (!ran)
      return ran.takeError();
    results[p] = std::move(*ran);
  }
  ReplayedOutputs replayed;
  replayed.nodes.resize(outputs.size());
  replayed.fromInput.assign(outputs.size(), -1);
  replayed.fromRecycled.assign(outputs.size(), -1);
  // One node per result, however many outputs it is.
  std::vector<std::vector<NodeRef>> nodes(programs.size());
  for (auto [k, source] : llvm::enumerate(outputs)) {
    switch (source.kind) {
    case Source::Input:
      replayed.fromInput[k] = source.index;
      break;
    case Source::Result: {
      std::vector<NodeRef> &made = nodes[source.program];
      made.resize(results[source.program].size());
      NodeRef &node = made[source.index];
      if (!node)
        node = TraceNode::parameter(results[source.program][source.index],
                                    /*recorded=*/false);
      replayed.nodes[k] = node;
      break;
    }
    case Source::Baked:
      replayed.nodes[k] = source.baked;
      break;
    }
  }
  detail::countReplay();
  return std::optional<ReplayedOutputs>(std::move(replayed));
}

llvm::Expected<std::optional<CapturedStep::ReplayedOutputs>>
CapturedStep::replayNodes(ArrayRef<NodeRef> inputs,
                          const ReplayOptions &options) const {
  if (inputs.size() != inputTypes.size())
    return makeError("replay: " + llvm::Twine(inputs.size()) +
                     " inputs for a step captured with " +
                     llvm::Twine(inputTypes.size()));
  // A replay inside a recorded step would hide its programs from the
  // recorder; the caller records instead.
  if (!activeRecorders.empty() || getDevice() != device ||
      getFloat32MatmulPrecision() != precision) {
    llvm::Expected<bool> fit = checkInputs(inputs, options.otherSizes);
    if (!fit)
      return fit.takeError();
    return std::nullopt;
  }
  if (device == Device::Cuda) {
    llvm::Expected<bool> fit = checkInputs(inputs, options.otherSizes);
    if (!fit)
      return fit.takeError();
    if (!*fit)
      return std::nullopt;
    return replayOnDevice(inputs, options.otherSizes);
  }
  Binding local;
  Binding &binding = options.binding ? *options.binding : local;
  if (!binding.state)
    binding.state = std::make_unique<Binding::State>();
  Binding::State &state = *binding.state;
  // Anything but a finished run leaves the binding to be made anew.
  auto replay = [&]() -> llvm::Expected<std::optional<ReplayedOutputs>> {
    llvm::Expected<bool> bound = rebind(state, inputs, options);
    if (bound && !*bound)
      bound = bind(state, inputs, options);
    if (!bound)
      return bound.takeError();
    if (!*bound)
      return std::nullopt;
    return runBound(state);
  };
  llvm::Expected<std::optional<ReplayedOutputs>> replayed = replay();
  if (!replayed || !*replayed)
    state.step = nullptr;
  return replayed;
}

llvm::Expected<std::optional<std::vector<Tensor>>>
CapturedStep::replay(ArrayRef<NodeRef> inputs, bool otherSizes,
                     ArrayRef<int32_t> replacedBy) const {
  ReplayOptions options;
  options.otherSizes = otherSizes;
  options.replacedBy = replacedBy;
  llvm::Expected<std::optional<ReplayedOutputs>> replayed =
      replayNodes(inputs, options);
  if (!replayed)
    return replayed.takeError();
  if (!*replayed)
    return std::nullopt;
  std::vector<Tensor> values;
  values.reserve(outputs.size());
  for (auto [node, input] :
       llvm::zip((*replayed)->nodes, (*replayed)->fromInput))
    values.push_back(Tensor::make(input >= 0 ? inputs[input] : node));
  return std::optional<std::vector<Tensor>>(std::move(values));
}

/// Whether two baked nodes hold the same data.
static bool sameData(const NodeRef &a, const NodeRef &b) {
  if (a == b)
    return true;
  std::shared_ptr<const HostTensor> x = a->getData(), y = b->getData();
  return x && y && x->getDType() == y->getDType() &&
         x->getShape() == y->getShape() &&
         std::memcmp(x->getData(), y->getData(), x->getByteSize()) == 0;
}

static bool sameSources(ArrayRef<CapturedStep::Source> a,
                        ArrayRef<CapturedStep::Source> b) {
  if (a.size() != b.size())
    return false;
  for (auto [x, y] : llvm::zip(a, b)) {
    if (x.kind != y.kind || x.index != y.index || x.program != y.program)
      return false;
    if (x.kind == CapturedStep::Source::Baked && !sameData(x.baked, y.baked))
      return false;
  }
  return true;
}

bool CapturedStep::isEquivalent(const CapturedStep &other,
                                bool otherSizes) const {
  if (device != other.device || precision != other.precision ||
      inputIsRead != other.inputIsRead || pinnedInputs != other.pinnedInputs ||
      aliasedInputs != other.aliasedInputs ||
      programs.size() != other.programs.size() ||
      inputTypes.size() != other.inputTypes.size() ||
      !sameSources(outputs, other.outputs))
    return false;
  for (auto [x, y] : llvm::zip(inputTypes, other.inputTypes))
    if (x.dtype != y.dtype || x.shape.size() != y.shape.size() ||
        (!otherSizes && x.shape != y.shape))
      return false;
  for (auto [x, y] : llvm::zip(programs, other.programs))
    if (x.executable != y.executable ||
        !sameSources(x.parameters, y.parameters))
      return false;
  return true;
}

//===----------------------------------------------------------------------===//
// Jit
//===----------------------------------------------------------------------===//

llvm::Expected<std::vector<Tensor>> Jit::operator()(ArrayRef<Tensor> inputs) {
  for (const Tensor &t : inputs)
    if (!t.ok())
      return makeError(t.getError());
  Entry *entry = nullptr;
  for (Entry &candidate : entries) {
    if (candidate.types.size() != inputs.size())
      continue;
    bool same = true;
    for (auto [type, t] : llvm::zip(candidate.types, inputs))
      same &= type.first == t.getDType() &&
              ArrayRef<int64_t>(type.second) == t.getShape();
    if (same) {
      entry = &candidate;
      break;
    }
  }
  if (!entry) {
    entries.emplace_back();
    entry = &entries.back();
    for (const Tensor &t : inputs)
      entry->types.push_back(
          {t.getDType(), llvm::SmallVector<int64_t, 4>(t.getShape())});
  }
  if (entry->trusted) {
    llvm::Expected<std::optional<std::vector<Tensor>>> replayed =
        replay(*entry->step, inputs, /*otherSizes=*/false);
    if (!replayed)
      return replayed.takeError();
    if (*replayed) {
      ++replays;
      return std::move(**replayed);
    }
  } else if (generic && entry->types.size() == generic->getNumInputs()) {
    // Sizes not captured yet: the shape-generic step, where its programs
    // take them.
    bool sameRanks = true;
    for (size_t i = 0; i < inputs.size() && sameRanks; ++i)
      sameRanks =
          inputs[i].getDType() == generic->getInputDType(i) &&
          inputs[i].getShape().size() == generic->getInputShape(i).size();
    if (sameRanks) {
      llvm::Expected<std::optional<std::vector<Tensor>>> replayed =
          replay(*generic, inputs, /*otherSizes=*/true);
      if (!replayed)
        return replayed.takeError();
      if (*replayed) {
        ++replays;
        ++genericReplays;
        return std::move(**replayed);
      }
    }
  }
  return record(*entry, inputs);
}

llvm::Expected<std::optional<std::vector<Tensor>>>
Jit::replay(const CapturedStep &step, ArrayRef<Tensor> inputs,
            bool otherSizes) {
  // The binding compares nodes by address: the last ones are held until
  // these replace them.
  bound.inputs.resize(inputs.size());
  for (auto [held, t] : llvm::zip(bound.inputs, inputs))
    if (held != t.getNode())
      held = t.getNode();
  CapturedStep::ReplayOptions options;
  options.otherSizes = otherSizes;
  options.binding = &bound.binding;
  llvm::Expected<std::optional<CapturedStep::ReplayedOutputs>> replayed =
      step.replayNodes(bound.inputs, options);
  if (!replayed)
    return replayed.takeError();
  if (!*replayed)
    return std::nullopt;
  std::vector<Tensor> values;
  values.reserve((*replayed)->nodes.size());
  for (auto [node, input] :
       llvm::zip((*replayed)->nodes, (*replayed)->fromInput))
    values.push_back(Tensor::make(input >= 0 ? bound.inputs[input] : node));
  return std::optional<std::vector<Tensor>>(std::move(values));
}

llvm::Expected<std::vector<Tensor>> Jit::record(Entry &entry,
                                                ArrayRef<Tensor> inputs) {
  ++recordedCalls;
  // Inputs are bound as data: compute any that are not yet.
  if (llvm::Error e = sync(inputs))
    return std::move(e);
  std::vector<NodeRef> nodes;
  for (const Tensor &t : inputs)
    nodes.push_back(t.getNode());
  StepRecorder recorder;
  std::vector<Tensor> outputs = fn(inputs);
  llvm::Expected<std::shared_ptr<CapturedStep>> step =
      recorder.finish(nodes, outputs);
  if (!step)
    return step.takeError();
  // Trusted once two consecutive calls captured the same step: a first call
  // that creates state, or Python values that change per call, never
  // replay.
  entry.trusted = entry.step && entry.step->isEquivalent(**step);
  // Two calls of different sizes that captured the same step: its
  // programs are shape-generic, and nothing baked depends on the sizes.
  bool otherSizes = false;
  if (lastRecorded)
    for (size_t i = 0; i < lastRecorded->getNumInputs() &&
                       i < (*step)->getNumInputs() && !otherSizes;
         ++i)
      otherSizes = lastRecorded->getInputShape(i) != (*step)->getInputShape(i);
  if (otherSizes && (*step)->isEquivalent(*lastRecorded, /*otherSizes=*/true))
    generic = *step;
  lastRecorded = *step;
  entry.step = std::move(*step);
  return outputs;
}
