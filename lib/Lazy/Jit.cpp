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

/// Whether arguments of these dtypes and shapes have the dtypes and ranks
/// of `signature`, and its static dims.
static bool fitsSignature(ArrayRef<TensorSignature> signature,
                          ArrayRef<DType> dtypes,
                          ArrayRef<ArrayRef<int64_t>> shapes) {
  if (signature.size() != dtypes.size())
    return false;
  for (auto [sig, dtype, shape] : llvm::zip(signature, dtypes, shapes)) {
    if (dtype != sig.dtype || shape.size() != sig.shape.size())
      return false;
    for (auto [want, have] : llvm::zip(sig.shape, shape))
      if (want >= 0 && want != have)
        return false;
  }
  return true;
}

/// A value in a replay: on the host (held by its node, which the replay
/// holds, or `owned`), or on the cuda device.
struct ReplayValue {
  const HostTensor *host = nullptr;
  std::shared_ptr<const HostTensor> owned;
  std::shared_ptr<const DeviceValue> device;
  /// A result written into a donated input's buffer, or a recycled node's
  /// (its index in ReplayOptions::recycle): that node holds it.
  int32_t donatedInput = -1, recycled = -1;
  /// A new result's node, once made.
  NodeRef node;
  DType getDType() const {
    return device ? device->getDType() : host->getDType();
  }
  ArrayRef<int64_t> getShape() const {
    return device ? device->getShape() : host->getShape();
  }
};

/// `node`'s value where the step runs: its host data (without a reference
/// when it is stored: the replay holds the node), or (on the device) its
/// device copy, uploaded now if it has none.
static llvm::Error getReplayValue(const TraceNode &node, bool onDevice,
                                  ReplayValue &value) {
  if (onDevice) {
    llvm::Expected<std::shared_ptr<const DeviceValue>> device =
        detail::getOnDevice(node);
    if (!device)
      return device.takeError();
    value.device = std::move(*device);
    return llvm::Error::success();
  }
  if ((value.host = node.peekHostData()))
    return llvm::Error::success();
  llvm::Expected<std::shared_ptr<const HostTensor>> host = node.getHostData();
  if (!host)
    return host.takeError();
  if (!*host)
    return makeError("replay: an input without a value");
  value.owned = std::move(*host);
  value.host = value.owned.get();
  return llvm::Error::success();
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

/// Whether `host`, held by its node alone, may be overwritten: not the
/// caller's borrowed memory, and no device copy that would go stale.
static bool isOnlyHolder(const TraceNode &node, const HostTensor *&host) {
  long holders = 0;
  host = node.peekHostData(&holders);
  return host && holders == 1 && !host->isBorrowed() && !node.hasDeviceData();
}

llvm::Expected<std::optional<CapturedStep::ReplayedOutputs>>
CapturedStep::replayNodes(ArrayRef<NodeRef> inputs,
                          const ReplayOptions &options) const {
  bool otherSizes = options.otherSizes;
  if (inputs.size() != inputTypes.size())
    return makeError("replay: " + llvm::Twine(inputs.size()) +
                     " inputs for a step captured with " +
                     llvm::Twine(inputTypes.size()));
  for (auto [i, node, type] : llvm::enumerate(inputs, inputTypes))
    if (!node || node->getDType() != type.dtype ||
        (otherSizes ? node->getShape().size() != type.shape.size()
                    : node->getShape() != ArrayRef<int64_t>(type.shape)))
      return makeError(
          "replay: input " + llvm::Twine(i) + " is " +
          (node ? getTensorTypeString(node->getDType(), node->getShape())
                : std::string("missing")) +
          ", but the step was captured with " +
          getTensorTypeString(type.dtype, type.shape));
  // A replay inside a recorded step would hide its programs from the
  // recorder; the caller records instead.
  if (!activeRecorders.empty() || getDevice() != device ||
      getFloat32MatmulPrecision() != precision)
    return std::nullopt;
  for (const auto &[i, node] : pinnedInputs)
    if (inputs[i] != node)
      return std::nullopt;
  for (auto [a, b] : aliasedInputs)
    if (inputs[a] != inputs[b])
      return std::nullopt;

  // Read inputs not computed yet (replaced by a recorded expression since
  // the last call) are computed first, together.
  std::vector<Tensor> uncomputed;
  for (size_t i = 0; i < inputs.size(); ++i)
    if (inputIsRead[i] && !inputs[i]->hasValue())
      uncomputed.push_back(Tensor::make(inputs[i]));
  if (!uncomputed.empty())
    if (llvm::Error e = sync(uncomputed))
      return std::move(e);
  // On the cuda device, values stay there: inputs and baked data are
  // uploaded once per node, results are kept on the device.
  bool onDevice = device == Device::Cuda;
  std::vector<ReplayValue> inputValues(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i)
    if (inputIsRead[i])
      if (llvm::Error e = getReplayValue(*inputs[i], onDevice, inputValues[i]))
        return std::move(e);

  // Per program, per output, the buffer it is written into (a donated
  // input's or a recycled node's); empty for a program with none.
  struct Destination {
    HostTensor *buffer = nullptr;
    int32_t input = -1, recycled = -1;
  };
  std::vector<std::vector<Destination>> into(programs.size());
  auto destinationOf = [&](const Source &output) -> Destination * {
    std::vector<Destination> &program = into[output.program];
    if (program.empty())
      program.resize(programs[output.program].executable->getOutputs().size());
    Destination &destination = program[output.index];
    return destination.buffer ? nullptr : &destination;
  };
  auto signatureOf = [&](const Source &output) -> const TensorSignature & {
    return programs[output.program].executable->getOutputs()[output.index];
  };
  if (!onDevice && donationEnabled()) {
    if (options.replacedBy.size() == inputs.size())
      for (auto [i, k] : llvm::enumerate(options.replacedBy)) {
        if (k < 0 || static_cast<size_t>(k) >= outputs.size() ||
            outputs[k].kind != Source::Result)
          continue;
        const HostTensor *host = nullptr;
        if (!isOnlyHolder(*inputs[i], host))
          continue;
        // Read by one program parameter (and not returned as it is: the
        // caller would read the overwritten value), that of output k's
        // program.
        auto [p, q] = donationReads[i];
        const Source &output = outputs[k];
        if (p < 0 || p != output.program)
          continue;
        const TensorSignature &signature = signatureOf(output);
        if (signature.dtype != host->getDType() ||
            signature.shape.size() != host->getShape().size() ||
            !programs[p].executable->getDonation().allows(q, output.index))
          continue;
        if (Destination *destination = destinationOf(output))
          *destination = {const_cast<HostTensor *>(host),
                          static_cast<int32_t>(i), -1};
      }
    if (options.recycle.size() == outputs.size())
      for (auto [k, node] : llvm::enumerate(options.recycle)) {
        const HostTensor *host = nullptr;
        if (!node || outputs[k].kind != Source::Result ||
            !isOnlyHolder(*node, host))
          continue;
        const TensorSignature &signature = signatureOf(outputs[k]);
        if (signature.dtype != host->getDType() ||
            ArrayRef<int64_t>(signature.shape) != host->getShape())
          continue;
        if (Destination *destination = destinationOf(outputs[k]))
          *destination = {const_cast<HostTensor *>(host), -1,
                          static_cast<int32_t>(k)};
      }
  }
  int64_t donatedBuffers = 0, donatedBytes = 0;

  std::vector<std::vector<ReplayValue>> results(programs.size());
  // The arguments, by pointer (to inputs, results and the baked values,
  // which `baked` holds): a step binds hundreds of state tensors.
  std::vector<const ReplayValue *> args;
  std::vector<ReplayValue> baked;
  std::vector<HostTensor *> buffers;
  llvm::SmallVector<DType, 16> dtypes;
  llvm::SmallVector<ArrayRef<int64_t>, 16> shapes;
  for (auto [p, program] : llvm::enumerate(programs)) {
    args.clear();
    baked.clear();
    baked.reserve(program.parameters.size());
    for (const Source &source : program.parameters) {
      switch (source.kind) {
      case Source::Input:
        args.push_back(&inputValues[source.index]);
        break;
      case Source::Result:
        args.push_back(&results[source.program][source.index]);
        break;
      case Source::Baked:
        if (llvm::Error e =
                getReplayValue(*source.baked, onDevice, baked.emplace_back()))
          return std::move(e);
        args.push_back(&baked.back());
        break;
      }
    }
    // At other sizes, a program whose arguments do not fit (a static one)
    // means recording: nothing was changed but new tensors.
    if (otherSizes) {
      dtypes.clear();
      shapes.clear();
      for (const ReplayValue *arg : args) {
        dtypes.push_back(arg->getDType());
        shapes.push_back(arg->getShape());
      }
      if (!fitsSignature(program.executable->getInputs(), dtypes, shapes))
        return std::nullopt;
    }
    if (onDevice) {
      llvm::SmallVector<const DeviceValue *, 16> pointers;
      for (const ReplayValue *arg : args)
        pointers.push_back(arg->device.get());
      llvm::Expected<std::vector<std::shared_ptr<const DeviceValue>>> ran =
          detail::runCountedOnDevice(*program.executable, pointers,
                                     "a replayed step's program " +
                                         std::to_string(p));
      if (!ran)
        return ran.takeError();
      for (std::shared_ptr<const DeviceValue> &result : *ran)
        results[p].emplace_back().device = std::move(result);
      continue;
    }
    llvm::SmallVector<const HostTensor *, 16> pointers;
    for (const ReplayValue *arg : args)
      pointers.push_back(arg->host);
    buffers.clear();
    for (const Destination &destination : into[p])
      buffers.push_back(destination.buffer);
    llvm::Expected<std::vector<HostTensor>> ran =
        detail::runCounted(*program.executable, pointers, buffers);
    if (!ran)
      return ran.takeError();
    results[p].resize(ran->size());
    for (auto [r, result] : llvm::enumerate(*ran)) {
      ReplayValue &value = results[p][r];
      if (r < buffers.size() && buffers[r]) {
        const Destination &destination = into[p][r];
        value.host = destination.buffer;
        value.donatedInput = destination.input;
        value.recycled = destination.recycled;
        if (destination.input >= 0) {
          ++donatedBuffers;
          donatedBytes +=
              static_cast<int64_t>(destination.buffer->getByteSize());
        }
        continue;
      }
      value.owned = std::make_shared<const HostTensor>(std::move(result));
      value.host = value.owned.get();
    }
  }

  ReplayedOutputs replayed;
  replayed.nodes.resize(outputs.size());
  replayed.fromInput.assign(outputs.size(), -1);
  replayed.fromRecycled.assign(outputs.size(), -1);
  for (auto [k, source] : llvm::enumerate(outputs)) {
    switch (source.kind) {
    case Source::Input:
      replayed.fromInput[k] = source.index;
      break;
    case Source::Result: {
      ReplayValue &result = results[source.program][source.index];
      if (result.donatedInput >= 0) {
        replayed.fromInput[k] = result.donatedInput;
        break;
      }
      if (result.recycled >= 0) {
        replayed.fromRecycled[k] = result.recycled;
        break;
      }
      // One node per result, however many outputs it is.
      if (!result.node)
        result.node =
            result.device
                ? TraceNode::parameter(result.device, /*recorded=*/false)
                : TraceNode::parameter(result.owned, /*recorded=*/false);
      replayed.nodes[k] = result.node;
      break;
    }
    case Source::Baked:
      replayed.nodes[k] = source.baked;
      break;
    }
  }
  detail::countReplay(donatedBuffers, donatedBytes);
  return std::optional<ReplayedOutputs>(std::move(replayed));
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
  std::vector<NodeRef> nodes;
  nodes.reserve(inputs.size());
  for (const Tensor &t : inputs)
    nodes.push_back(t.getNode());
  if (entry->trusted) {
    llvm::Expected<std::optional<std::vector<Tensor>>> replayed =
        entry->step->replay(nodes);
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
          generic->replay(nodes, /*otherSizes=*/true);
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
