//===- Jit.cpp - kiln.jit: Python steps captured once, then replayed ------===//
//
// kiln.jit(fn) records fn's first calls as usual and captures each one:
//   - its tensor arguments (flattened through tuples, lists and dicts;
//     numpy arrays borrowed), keyed by dtype, shape and requires_grad, with
//     every other argument compared by value;
//   - the state it reads: tensors made before the call whose values the
//     step's programs read (found among the live tensors), and a
//     parameter's `.grad` as "the .grad of that parameter";
//   - what it changes: tensors made before the call that it rebinds
//     (optimizer steps), whose `.grad` it sets (backward, zero_grad) or
//     whose flags it sets;
//   - what it returns.
// At the end of a recorded call everything it left is materialized as one
// program (kiln::StepRecorder). Once two consecutive calls with the same
// argument types captured the same step, later calls replay it
// (kiln::CapturedStep): no op is recorded, the new arguments and the
// state's current values are bound, the programs run, and the changes are
// made again with the new values; the return value is rebuilt with new
// tensors.
//
//===----------------------------------------------------------------------===//

#include "PyTensor.h"

#include "kiln/Lazy/Jit.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <nanobind/stl/string.h>

using namespace kiln;
using namespace kiln::python;

//===----------------------------------------------------------------------===//
// The live tensors and the changes a capture watches
//===----------------------------------------------------------------------===//

PyTensor *PyTensor::firstLive = nullptr;
PyTensor *PyTensor::lastLive = nullptr;
uint64_t PyTensor::nextSerial = 1;
uint64_t PyTensor::changeWatchSerial = 0;

void PyTensor::link() {
  serial = nextSerial++;
  prevLive = lastLive;
  nextLive = nullptr;
  (lastLive ? lastLive->nextLive : firstLive) = this;
  lastLive = this;
}

void PyTensor::unlink() {
  (prevLive ? prevLive->nextLive : firstLive) = nextLive;
  (nextLive ? nextLive->prevLive : lastLive) = prevLive;
}

namespace {

/// What a tensor made before the capture was when the capture began.
struct Before {
  PyTensor *tensor;
  Tensor value;
  nb::object grad;
  bool requiresGrad, isLeaf;
};

/// A capture under way (one at a time per process: PyTensor's watch is
/// process-wide, guarded by the GIL). Only its own thread's changes are
/// its: another thread's optimizer step is not part of the step.
struct Capture {
  uint64_t id;
  uint64_t startSerial;
  unsigned long thread;
  std::vector<Before> changed;
  bool readValues = false;
};
Capture *activeCapture = nullptr;
uint64_t lastCaptureId = 0;

} // namespace

void PyTensor::noteChange() {
  Capture *capture = activeCapture;
  if (!capture || notedBy == capture->id ||
      PyThread_get_thread_ident() != capture->thread)
    return;
  notedBy = capture->id;
  capture->changed.push_back({this, value, grad, requiresGrad, isLeaf});
}

void kiln::python::noteValueRead() {
  if (activeCapture && PyThread_get_thread_ident() == activeCapture->thread)
    activeCapture->readValues = true;
}

namespace {

[[noreturn]] void fail(const std::string &message) {
  throw nb::value_error(message.c_str());
}

//===----------------------------------------------------------------------===//
// Arguments, flattened
//===----------------------------------------------------------------------===//

enum Code : int64_t {
  TensorCode = -1,
  TupleCode = -2,
  ListCode = -3,
  DictCode = -4,
  StaticCode = -5,
  KeywordsCode = -6,
};

/// A call's arguments: the tensors, in order, and a key that says their
/// types and everything else.
struct Flat {
  std::vector<PyTensor *> tensors;
  /// Keeps tensors made from numpy arrays alive.
  std::vector<nb::object> made;
  std::vector<int64_t> key;
  /// The key without the tensors' sizes (their dtypes and ranks kept).
  std::vector<int64_t> structure;
  std::vector<nb::object> statics;

  void push(int64_t code) {
    key.push_back(code);
    structure.push_back(code);
  }
};

nb::object &numpyArrayType() {
  static auto *type =
      new nb::object(nb::module_::import_("numpy").attr("ndarray"));
  return *type;
}

nb::object &fromNumpy() {
  static auto *function =
      new nb::object(nb::module_::import_("kiln._C").attr("from_numpy"));
  return *function;
}

/// Adds `value` to `flat`; returns it with numpy arrays turned into
/// tensors when `rebuild` (the arguments fn is called with).
nb::object flatten(nb::handle value, Flat &flat, bool rebuild) {
  PyTensor *t = nullptr;
  if (nb::try_cast<PyTensor *>(value, t, false) && t) {
    flat.tensors.push_back(t);
    flat.push(TensorCode);
    flat.push(static_cast<int64_t>(t->value.getDType()) * 2 + t->requiresGrad);
    flat.push(static_cast<int64_t>(t->value.getShape().size()));
    llvm::append_range(flat.key, t->value.getShape());
    return rebuild ? nb::borrow(value) : nb::object();
  }
  if (PyTuple_CheckExact(value.ptr()) || PyList_CheckExact(value.ptr())) {
    bool tuple = PyTuple_CheckExact(value.ptr());
    size_t size = nb::len(value);
    flat.push(tuple ? TupleCode : ListCode);
    flat.push(static_cast<int64_t>(size));
    nb::list items;
    for (nb::handle item : value) {
      nb::object rebuilt = flatten(item, flat, rebuild);
      if (rebuild)
        items.append(rebuilt);
    }
    if (!rebuild)
      return nb::object();
    return tuple ? nb::object(nb::tuple(items)) : nb::object(items);
  }
  if (PyDict_CheckExact(value.ptr())) {
    flat.push(DictCode);
    flat.push(static_cast<int64_t>(nb::len(value)));
    nb::dict rebuilt;
    for (auto [k, item] : nb::borrow<nb::dict>(value)) {
      flat.statics.push_back(nb::borrow(k));
      nb::object v = flatten(item, flat, rebuild);
      if (rebuild)
        rebuilt[k] = v;
    }
    return rebuild ? nb::object(rebuilt) : nb::object();
  }
  if (nb::isinstance(value, numpyArrayType())) {
    nb::object made = fromNumpy()(value);
    flat.made.push_back(made);
    flatten(made, flat, false);
    return rebuild ? made : nb::object();
  }
  flat.push(StaticCode);
  flat.statics.push_back(nb::borrow(value));
  return rebuild ? nb::borrow(value) : nb::object();
}

/// A Flat key without the tensors' sizes: Flat::structure.
std::vector<int64_t> structureOf(const std::vector<int64_t> &key) {
  std::vector<int64_t> structure;
  for (size_t i = 0; i < key.size();) {
    int64_t code = key[i++];
    structure.push_back(code);
    if (code == TensorCode) {
      int64_t type = key[i++], rank = key[i++];
      structure.push_back(type);
      structure.push_back(rank);
      i += static_cast<size_t>(rank);
    } else if (code == TupleCode || code == ListCode || code == DictCode) {
      structure.push_back(key[i++]);
    }
  }
  return structure;
}

bool sameStatics(const std::vector<nb::object> &a,
                 const std::vector<nb::object> &b) {
  if (a.size() != b.size())
    return false;
  for (auto [x, y] : llvm::zip(a, b))
    if (!x.is(y) && !x.equal(y))
      return false;
  return true;
}

//===----------------------------------------------------------------------===//
// A captured call
//===----------------------------------------------------------------------===//

/// A tensor the step reads or changes, found anew on every replay.
struct Slot {
  enum Kind : uint8_t { Argument, Object, GradOf } kind;
  /// Argument: its index among the call's tensors. GradOf: the slot whose
  /// `.grad` it is.
  int32_t index = 0;
  /// Object: a weak reference to the tensor, so that a tensor the program
  /// no longer holds (replaced in a dict or an attribute) is not replayed,
  /// and the tensor it was when captured.
  nb::object weak;
  const PyTensor *captured = nullptr;
  bool operator==(const Slot &other) const {
    return kind == other.kind && index == other.index &&
           captured == other.captured;
  }
};

/// A tensor a replay hands out: a new one holding an output, or a slot's.
struct Made {
  enum Kind : uint8_t { NoTensor, New, FromSlot, Held } kind = NoTensor;
  int32_t index = 0; // New: the output; FromSlot: the slot
  bool requiresGrad = false, isLeaf = true;
  nb::object held;
  bool operator==(const Made &other) const {
    return kind == other.kind && index == other.index &&
           requiresGrad == other.requiresGrad && isLeaf == other.isLeaf &&
           held.is(other.held);
  }
};

/// What the step did to a slot's tensor.
struct Change {
  int32_t slot;
  /// The new value's output, or -1 when the value is unchanged.
  int32_t value = -1;
  /// The new `.grad`: unchanged (-1 in gradKept), None, or a tensor.
  bool gradKept = true;
  Made grad;
  bool requiresGrad, isLeaf;
  bool operator==(const Change &other) const {
    return slot == other.slot && value == other.value &&
           gradKept == other.gradKept && grad == other.grad &&
           requiresGrad == other.requiresGrad && isLeaf == other.isLeaf;
  }
};

/// What a replay of a capture keeps for the next one: the nodes it bound
/// and the old gradients it offered for recycling, so that one that is
/// unchanged (state a replay donates keeps its node; a recycled gradient
/// keeps its object) costs neither a reference count nor a check, and the
/// step's binding (CapturedStep::Binding), which needs the last replay's
/// nodes held until the next: it holds the state's nodes (as the tensors
/// do) and the last arguments'.
struct ReplayScratch {
  std::vector<NodeRef> inputs;
  CapturedStep::Binding binding;
  /// Per output: the node offered for recycling, this replay's and the
  /// change that offered it.
  std::vector<NodeRef> recycleHeld;
  std::vector<const TraceNode *> recycle;
  std::vector<int32_t> offeredBy;
  /// The slots' tensors (held while the GIL is released) and donations.
  std::vector<PyTensor *> slotTensors;
  std::vector<nb::object> held;
  std::vector<int32_t> replacedBy;
  /// Whether `inputs` were checked for a replay at other sizes.
  bool otherSizes = false;
  /// In use by a replay (which releases the GIL): a replay of the same
  /// capture on another thread meanwhile uses its own.
  bool busy = false;
};

struct Captured {
  std::shared_ptr<CapturedStep> step;
  ReplayScratch scratch;
  std::vector<Slot> slots;
  std::vector<Change> changes;
  /// The returned value, and the tensors in it in traversal order.
  nb::object returned;
  std::vector<Made> returnedTensors;
  bool readValues = false;

  /// With `otherSizes`, `other` was captured with tensors of other sizes.
  bool isEquivalent(const Captured &other, bool otherSizes = false) const {
    return step->isEquivalent(*other.step, otherSizes) &&
           slots == other.slots && changes == other.changes &&
           returnedTensors == other.returnedTensors;
  }
};

struct Entry {
  std::vector<int64_t> key;
  std::vector<nb::object> statics;
  std::shared_ptr<Captured> captured;
  bool trusted = false;
  int failedVerifications = 0;
};

/// The tensors in a returned value, in traversal order.
void collectTensors(nb::handle value, std::vector<PyTensor *> &tensors) {
  PyTensor *t = nullptr;
  if (nb::try_cast<PyTensor *>(value, t, false) && t) {
    tensors.push_back(t);
  } else if (PyTuple_CheckExact(value.ptr()) ||
             PyList_CheckExact(value.ptr())) {
    for (nb::handle item : value)
      collectTensors(item, tensors);
  } else if (PyDict_CheckExact(value.ptr())) {
    for (auto [k, item] : nb::borrow<nb::dict>(value))
      collectTensors(item, tensors);
  }
}

/// `value` with its tensors replaced by `made` (in traversal order).
nb::object rebuildReturned(nb::handle value,
                           const std::vector<nb::object> &made, size_t &next) {
  if (nb::isinstance<PyTensor>(value))
    return made[next++];
  if (PyTuple_CheckExact(value.ptr()) || PyList_CheckExact(value.ptr())) {
    nb::list items;
    for (nb::handle item : value)
      items.append(rebuildReturned(item, made, next));
    return PyTuple_CheckExact(value.ptr()) ? nb::object(nb::tuple(items))
                                           : nb::object(items);
  }
  if (PyDict_CheckExact(value.ptr())) {
    nb::dict rebuilt;
    for (auto [k, item] : nb::borrow<nb::dict>(value))
      rebuilt[k] = rebuildReturned(item, made, next);
    return rebuilt;
  }
  return nb::borrow(value);
}

void warn(const std::string &message) {
  if (PyErr_WarnEx(PyExc_RuntimeWarning, message.c_str(), 1) < 0)
    throw nb::python_error(); // warnings turned into errors
}

//===----------------------------------------------------------------------===//
// kiln.jit
//===----------------------------------------------------------------------===//

class JitFunction {
public:
  explicit JitFunction(nb::object fn) : fn(std::move(fn)) {}

  nb::object call(nb::args args, nb::kwargs kwargs);

  nb::object fn;
  std::vector<std::shared_ptr<Entry>> entries;
  /// The last call recorded (its entry), and the step that two recorded
  /// calls with tensors of different sizes captured alike: replayed for
  /// arguments of its structure at sizes not captured yet.
  std::shared_ptr<Entry> lastRecorded;
  std::shared_ptr<Captured> generic;
  std::vector<int64_t> genericStructure;
  std::vector<nb::object> genericStatics;
  int64_t replays = 0, recordedCalls = 0, genericReplays = 0;
  bool warnedReads = false, warnedUnstable = false;

private:
  nb::object record(Entry &entry, nb::args args, nb::kwargs kwargs);
  /// The replayed call's result, or nothing when the step must be recorded.
  /// With `otherSizes`, the tensors may have other sizes than captured.
  std::optional<nb::object> replay(const std::shared_ptr<Captured> &captured,
                                   const Flat &flat, bool otherSizes);
};

nb::object JitFunction::call(nb::args args, nb::kwargs kwargs) {
  Flat flat;
  flatten(args, flat, false);
  if (nb::len(kwargs) != 0) {
    flat.push(KeywordsCode);
    flatten(kwargs, flat, false);
  }
  std::shared_ptr<Entry> entry;
  for (const std::shared_ptr<Entry> &candidate : entries)
    if (candidate->key == flat.key &&
        sameStatics(candidate->statics, flat.statics)) {
      entry = candidate;
      break;
    }
  if (!entry) {
    entry = std::make_shared<Entry>();
    entry->key = flat.key;
    entry->statics = flat.statics;
    entries.push_back(entry);
  }
  if (entry->trusted) {
    if (std::optional<nb::object> result =
            replay(entry->captured, flat, /*otherSizes=*/false))
      return std::move(*result);
  } else if (generic && flat.structure == genericStructure &&
             sameStatics(genericStatics, flat.statics)) {
    // Sizes not captured yet: the shape-generic step, where its programs
    // take them.
    std::shared_ptr<Captured> captured = generic;
    if (std::optional<nb::object> result =
            replay(captured, flat, /*otherSizes=*/true)) {
      ++genericReplays;
      return std::move(*result);
    }
  }
  std::shared_ptr<Entry> recorded = entry;
  nb::object result = record(*entry, args, kwargs);
  // Two calls of different sizes that captured the same step: its programs
  // are shape-generic, and nothing baked depends on the sizes.
  if (lastRecorded && lastRecorded != recorded && lastRecorded->captured &&
      recorded->captured &&
      lastRecorded->captured->readValues == recorded->captured->readValues &&
      sameStatics(lastRecorded->statics, recorded->statics) &&
      structureOf(lastRecorded->key) == flat.structure &&
      recorded->captured->isEquivalent(*lastRecorded->captured,
                                       /*otherSizes=*/true)) {
    generic = recorded->captured;
    genericStructure = flat.structure;
    genericStatics = flat.statics;
  }
  lastRecorded = std::move(recorded);
  return result;
}

std::optional<nb::object>
JitFunction::replay(const std::shared_ptr<Captured> &captured, const Flat &flat,
                    bool otherSizes) {
  const CapturedStep &step = *captured->step;
  ReplayScratch local;
  ReplayScratch &scratch = captured->scratch.busy ? local : captured->scratch;
  if (scratch.inputs.size() != captured->slots.size() ||
      scratch.otherSizes != otherSizes) {
    // The binding knows the nodes let go of here.
    scratch.binding.reset();
    scratch.inputs.assign(captured->slots.size(), nullptr);
    scratch.otherSizes = otherSizes;
  }
  size_t numOutputs = step.getOutputs().size();
  scratch.recycleHeld.resize(numOutputs);
  scratch.recycle.assign(numOutputs, nullptr);
  scratch.offeredBy.assign(numOutputs, -1);
  scratch.busy = true;
  // The slots' tensors are held while the GIL is released, and let go
  // however the replay ends. A replay that does not reach the step may
  // have let go of nodes the binding knows.
  std::vector<nb::object> &held = scratch.held;
  held.resize(captured->slots.size());
  struct Release {
    ReplayScratch &scratch;
    bool reachedStep = false;
    ~Release() {
      if (!reachedStep)
        scratch.binding.reset();
      for (nb::object &object : scratch.held)
        object.reset();
      scratch.busy = false;
    }
  } release{scratch};

  // The slots' tensors now.
  std::vector<PyTensor *> &slotTensors = scratch.slotTensors;
  slotTensors.resize(captured->slots.size());
  for (auto [i, slot] : llvm::enumerate(captured->slots)) {
    PyObject *object = nullptr;
    switch (slot.kind) {
    case Slot::Argument:
      object = nb::find(flat.tensors[slot.index]).ptr();
      break;
    case Slot::Object:
      object = PyWeakref_GetObject(slot.weak.ptr());
      if (object == Py_None)
        return std::nullopt; // the tensor is gone: record
      break;
    case Slot::GradOf: {
      PyTensor *g = nullptr;
      if (!nb::try_cast<PyTensor *>(slotTensors[slot.index]->grad, g, false) ||
          !g)
        return std::nullopt; // the .grad the step reads is gone: record
      object = slotTensors[slot.index]->grad.ptr();
      break;
    }
    }
    held[i] = nb::borrow(object);
    PyTensor *t = nb::inst_ptr<PyTensor>(object);
    slotTensors[i] = t;
    const NodeRef &node = t->value.getNode();
    // A node bound by the last replay was checked then.
    if (node && node == scratch.inputs[i])
      continue;
    if (!t->value.ok())
      fail(t->value.getError());
    if (otherSizes && (node->getDType() != step.getInputDType(i) ||
                       node->getShape().size() != step.getInputShape(i).size()))
      return std::nullopt; // not of the step's structure: record
    if (!otherSizes && slot.kind != Slot::Argument &&
        (node->getDType() != step.getInputDType(i) ||
         node->getShape() != step.getInputShape(i)))
      fail("kiln.jit: a tensor that the function reads without taking it as "
           "an argument is " +
           getTensorTypeString(node->getDType(), node->getShape()) +
           ", but it was " +
           getTensorTypeString(step.getInputDType(i), step.getInputShape(i)) +
           " when the function was captured (state must keep its dtype and "
           "shape)");
    scratch.inputs[i] = node;
  }
  // State the step rebinds, held by nothing but its tensor (and the
  // scratch), is donated: the new value is computed in the old one's
  // buffer. A `.grad` the step replaces by a new one, held by nothing but
  // its parameter, is recycled: the new gradient is computed in its buffer
  // and the tensor object is kept.
  std::vector<int32_t> &replacedBy = scratch.replacedBy;
  replacedBy.assign(slotTensors.size(), -1);
  PyTypeObject *tensorType =
      reinterpret_cast<PyTypeObject *>(nb::type<PyTensor>().ptr());
  for (auto [c, change] : llvm::enumerate(captured->changes)) {
    if (change.value >= 0 && scratch.inputs[change.slot].use_count() == 2)
      replacedBy[change.slot] = change.value;
    if (change.gradKept || change.grad.kind != Made::New ||
        scratch.offeredBy[change.grad.index] >= 0)
      continue;
    PyObject *old = slotTensors[change.slot]->grad.ptr();
    if (Py_REFCNT(old) != 1 || Py_TYPE(old) != tensorType)
      continue;
    PyTensor &grad = *nb::inst_ptr<PyTensor>(old);
    if (!grad.value.ok() || grad.snapshot.ok() || !grad.grad.is_none())
      continue;
    NodeRef &kept = scratch.recycleHeld[change.grad.index];
    if (kept != grad.value.getNode())
      kept = grad.value.getNode();
    if (kept.use_count() != 2)
      continue;
    scratch.recycle[change.grad.index] = kept.get();
    scratch.offeredBy[change.grad.index] = static_cast<int32_t>(c);
  }
  CapturedStep::ReplayOptions options;
  options.otherSizes = otherSizes;
  options.replacedBy = replacedBy;
  options.recycle = scratch.recycle;
  options.binding = &scratch.binding;
  llvm::Expected<std::optional<CapturedStep::ReplayedOutputs>> replayed = [&] {
    nb::gil_scoped_release noGil;
    return step.replayNodes(scratch.inputs, options);
  }();
  release.reachedStep = true;
  if (!replayed)
    fail("kiln.jit: " + llvm::toString(replayed.takeError()));
  if (!*replayed)
    return std::nullopt;
  CapturedStep::ReplayedOutputs &outputs = **replayed;
  auto nodeOf = [&](int32_t k) -> const NodeRef & {
    if (outputs.fromInput[k] >= 0)
      return scratch.inputs[outputs.fromInput[k]];
    if (outputs.fromRecycled[k] >= 0)
      return scratch.recycleHeld[outputs.fromRecycled[k]];
    return outputs.nodes[k];
  };

  auto make = [&](const Made &made) -> nb::object {
    switch (made.kind) {
    case Made::New: {
      nb::object t = nb::cast(PyTensor(Tensor::make(nodeOf(made.index)),
                                       made.requiresGrad, made.isLeaf));
      if (made.requiresGrad && made.isLeaf)
        updateRegistration(nb::cast<PyTensor &>(t));
      return t;
    }
    case Made::FromSlot:
      return held[made.index];
    case Made::Held:
      return made.held;
    case Made::NoTensor:
      break;
    }
    return nb::none();
  };
  for (auto [c, change] : llvm::enumerate(captured->changes)) {
    PyTensor &t = *slotTensors[change.slot];
    if (change.value >= 0) {
      // Donated state's node holds its new value already.
      if (outputs.fromInput[change.value] != change.slot)
        t.value = Tensor::make(nodeOf(change.value));
      if (t.snapshot.ok())
        t.snapshot = Tensor();
    }
    if (!change.gradKept) {
      // The recycled gradient: the old tensor object (still the
      // parameter's, holding the recycled node) holds the new value.
      const Made &made = change.grad;
      PyTensor *grad = nullptr;
      if (made.kind == Made::New &&
          outputs.fromRecycled[made.index] == made.index &&
          scratch.offeredBy[made.index] == static_cast<int32_t>(c) &&
          Py_TYPE(t.grad.ptr()) == tensorType)
        grad = nb::inst_ptr<PyTensor>(t.grad.ptr());
      if (grad && grad->value.getNode().get() == scratch.recycle[made.index]) {
        grad->requiresGrad = made.requiresGrad;
        grad->isLeaf = made.isLeaf;
        updateRegistration(*grad);
      } else {
        t.grad = make(made);
      }
    }
    t.requiresGrad = change.requiresGrad;
    t.isLeaf = change.isLeaf;
    updateRegistration(t);
  }
  std::vector<nb::object> made;
  for (const Made &m : captured->returnedTensors)
    made.push_back(make(m));
  size_t next = 0;
  ++replays;
  return rebuildReturned(captured->returned, made, next);
}

nb::object JitFunction::record(Entry &entry, nb::args args, nb::kwargs kwargs) {
  ++recordedCalls;
  if (activeCapture) {
    // A jitted function called while another is captured (on this thread:
    // part of that capture; on another: one capture at a time), recorded
    // as plain ops.
    nb::object result =
        nb::steal(PyObject_Call(fn.ptr(), args.ptr(), kwargs.ptr()));
    if (!result.is_valid())
      throw nb::python_error();
    return result;
  }
  Flat flat;
  nb::object callArgs = flatten(args, flat, true);
  nb::object callKwargs = nb::dict();
  if (nb::len(kwargs) != 0)
    callKwargs = flatten(kwargs, flat, true);
  // The arguments are bound as data, and the state starts computed.
  std::vector<Tensor> argValues;
  for (PyTensor *t : flat.tensors)
    argValues.push_back(t->value);
  materialize(argValues);

  Capture capture{++lastCaptureId,
                  PyTensor::nextSerial,
                  PyThread_get_thread_ident(),
                  {},
                  false};
  activeCapture = &capture;
  PyTensor::changeWatchSerial = capture.startSerial;
  struct Stop {
    ~Stop() {
      activeCapture = nullptr;
      PyTensor::changeWatchSerial = 0;
    }
  } stop;
  StepRecorder recorder;
  nb::object result =
      nb::steal(PyObject_Call(fn.ptr(), callArgs.ptr(), callKwargs.ptr()));
  if (!result.is_valid())
    throw nb::python_error();

  auto captured = std::make_shared<Captured>();
  captured->returned = result;
  captured->readValues = capture.readValues;
  std::vector<Tensor> outputs;
  auto output = [&](const Tensor &t) {
    outputs.push_back(t);
    return static_cast<int32_t>(outputs.size() - 1);
  };
  // Everything the call left is computed now: what it returns, what it
  // changed, and whatever optimizer state is pending.
  std::vector<PyTensor *> returnedTensors;
  collectTensors(result, returnedTensors);
  for (PyTensor *t : returnedTensors)
    outputs.push_back(t->value);
  for (const Before &before : capture.changed) {
    outputs.push_back(before.tensor->value);
    PyTensor *g = nullptr;
    if (nb::try_cast<PyTensor *>(before.tensor->grad, g, false) && g)
      outputs.push_back(g->value);
  }
  activeCapture = nullptr;
  PyTensor::changeWatchSerial = 0;
  materialize(outputs);
  if (llvm::Error e = recorder.stop(outputs))
    fail(llvm::toString(std::move(e)));
  outputs.clear();

  // The slots: the arguments, then the state the programs read or the call
  // changed, oldest first.
  llvm::DenseMap<const PyTensor *, int32_t> slotOf;
  std::vector<NodeRef> inputs;
  for (auto [i, t] : llvm::enumerate(flat.tensors)) {
    slotOf.try_emplace(t, static_cast<int32_t>(i));
    captured->slots.push_back(
        {Slot::Argument, static_cast<int32_t>(i), {}, nullptr});
    inputs.push_back(t->value.getNode());
  }
  llvm::DenseMap<const PyTensor *, const Before *> beforeOf;
  for (const Before &before : capture.changed)
    beforeOf[before.tensor] = &before;
  llvm::DenseSet<const TraceNode *> read = recorder.getReadNodes();
  // Whose `.grad` each tensor was when the call began.
  llvm::DenseMap<const PyTensor *, const PyTensor *> gradOwner;
  std::vector<PyTensor *> stateTensors;
  for (PyTensor *t = PyTensor::firstLive; t; t = t->nextLive) {
    if (t->serial >= capture.startSerial)
      break;
    const Before *before = beforeOf.lookup(t);
    const nb::object &grad = before ? before->grad : t->grad;
    PyTensor *g = nullptr;
    if (nb::try_cast<PyTensor *>(grad, g, false) && g)
      gradOwner.try_emplace(g, t);
    const Tensor &value = before ? before->value : t->value;
    if (before || (value.ok() && read.contains(value.getNode().get())))
      stateTensors.push_back(t);
  }
  auto startValue = [&](const PyTensor *t) -> const Tensor & {
    const Before *before = beforeOf.lookup(t);
    return before ? before->value : t->value;
  };
  auto addObject = [&](PyTensor *t) {
    auto [it, inserted] =
        slotOf.try_emplace(t, static_cast<int32_t>(captured->slots.size()));
    if (inserted) {
      nb::object weak = nb::steal(PyWeakref_NewRef(nb::find(t).ptr(), nullptr));
      if (!weak.is_valid())
        throw nb::python_error();
      captured->slots.push_back({Slot::Object, 0, std::move(weak), t});
      inputs.push_back(startValue(t).getNode());
    }
    return it->second;
  };
  // Owners first, so that a .grad slot names a slot before it.
  for (PyTensor *t : stateTensors)
    if (!gradOwner.count(t))
      addObject(t);
  for (PyTensor *t : stateTensors) {
    auto owner = gradOwner.find(t);
    if (owner == gradOwner.end() || slotOf.count(t))
      continue;
    int32_t ownerSlot = addObject(const_cast<PyTensor *>(owner->second));
    slotOf[t] = static_cast<int32_t>(captured->slots.size());
    captured->slots.push_back({Slot::GradOf, ownerSlot, {}, nullptr});
    inputs.push_back(startValue(t).getNode());
  }

  auto describe = [&](PyTensor *t) {
    Made made;
    if (auto it = slotOf.find(t); it != slotOf.end()) {
      made.kind = Made::FromSlot;
      made.index = it->second;
    } else if (t->serial < capture.startSerial) {
      made.kind = Made::Held;
      made.held = nb::find(t);
    } else {
      made.kind = Made::New;
      made.index = output(t->value);
      made.requiresGrad = t->requiresGrad;
      made.isLeaf = t->isLeaf;
    }
    return made;
  };
  for (PyTensor *t : returnedTensors)
    captured->returnedTensors.push_back(describe(t));
  for (const Before &before : capture.changed) {
    PyTensor *t = before.tensor;
    Change change;
    change.slot = slotOf.lookup(t);
    if (t->value.getNode() != before.value.getNode())
      change.value = output(t->value);
    change.gradKept = t->grad.is(before.grad);
    if (!change.gradKept) {
      PyTensor *g = nullptr;
      if (nb::try_cast<PyTensor *>(t->grad, g, false) && g)
        change.grad = describe(g);
    }
    change.requiresGrad = t->requiresGrad;
    change.isLeaf = t->isLeaf;
    captured->changes.push_back(std::move(change));
  }
  captured->step = recorder.capture(inputs, outputs);

  if (captured->readValues && !warnedReads) {
    warnedReads = true;
    warn("kiln.jit: the function read a tensor's value (.numpy(), .item(), "
         "float()) while it was recorded; a replay runs the recorded "
         "programs only, so Python code that depends on such a value is not "
         "run again");
  }
  entry.trusted = entry.captured && entry.captured->isEquivalent(*captured);
  entry.failedVerifications =
      entry.trusted || !entry.captured ? 0 : entry.failedVerifications + 1;
  if (entry.failedVerifications >= 3 && !warnedUnstable) {
    warnedUnstable = true;
    warn("kiln.jit: calls of the function with the same argument types keep "
         "recording different steps (the tensors it reads without taking "
         "them as arguments, the Python numbers it uses, or what it returns "
         "change from call to call), so it is recorded on every call");
  }
  entry.captured = std::move(captured);
  return result;
}

/// The Python objects a JitFunction holds, for the cycle collector: its
/// function's globals usually hold the JitFunction itself.
template <typename Visit> void forEachHeld(JitFunction &jit, Visit visit) {
  auto visitCaptured = [&](const Captured &captured) {
    visit(captured.returned);
    for (const Slot &slot : captured.slots)
      visit(slot.weak);
    for (const Made &made : captured.returnedTensors)
      visit(made.held);
    for (const Change &change : captured.changes)
      visit(change.grad.held);
  };
  visit(jit.fn);
  for (const nb::object &o : jit.genericStatics)
    visit(o);
  // Each reference once: the generic step is often an entry's too.
  if (jit.generic && llvm::none_of(jit.entries, [&](const auto &entry) {
        return entry->captured == jit.generic;
      }))
    visitCaptured(*jit.generic);
  for (const std::shared_ptr<Entry> &entry : jit.entries) {
    for (const nb::object &o : entry->statics)
      visit(o);
    if (entry->captured)
      visitCaptured(*entry->captured);
  }
}

int traverseJit(PyObject *self, visitproc visit, void *arg) {
  Py_VISIT(Py_TYPE(self));
  if (!nb::inst_ready(self))
    return 0;
  int result = 0;
  forEachHeld(*nb::inst_ptr<JitFunction>(self), [&](const nb::object &o) {
    if (!result && o.is_valid())
      result = visit(o.ptr(), arg);
  });
  return result;
}

int clearJit(PyObject *self) {
  JitFunction &jit = *nb::inst_ptr<JitFunction>(self);
  jit.entries.clear();
  jit.lastRecorded.reset();
  jit.generic.reset();
  jit.genericStatics.clear();
  jit.fn = nb::none();
  return 0;
}

PyType_Slot jitSlots[] = {{Py_tp_traverse, (void *)traverseJit},
                          {Py_tp_clear, (void *)clearJit},
                          {0, nullptr}};

} // namespace

void kiln::python::bindJit(nb::module_ &m) {
  nb::class_<JitFunction>(
      m, "Jit", nb::type_slots(jitSlots),
      "A function whose calls are recorded until captured, then replayed "
      "(kiln.jit).")
      .def(nb::init<nb::object>(), nb::arg("fn"))
      .def("__call__", &JitFunction::call)
      .def_prop_ro(
          "replays", [](const JitFunction &f) { return f.replays; },
          "Calls replayed so far.")
      .def_prop_ro(
          "recorded_calls",
          [](const JitFunction &f) { return f.recordedCalls; },
          "Calls recorded (run as plain lazy code) so far.")
      .def_prop_ro(
          "generic_replays",
          [](const JitFunction &f) { return f.genericReplays; },
          "Calls replayed at tensor sizes no call captured (the "
          "shape-generic step).")
      .def_prop_ro(
          "captures",
          [](const JitFunction &f) {
            int64_t n = 0;
            for (const std::shared_ptr<Entry> &e : f.entries)
              n += e->trusted;
            return n;
          },
          "Argument signatures with a step captured and trusted.")
      .def_ro("__wrapped__", &JitFunction::fn);
}
