//===- Autograd.cpp - backward(), leaves' .grad, pending optimizer state --===//
//
// PyTorch's habit on kiln's functional gradients: backward() finds the
// leaves that require grad and that the output depends on, records one
// kiln.vjp for all of them (kiln::grad), and adds the results into their
// `.grad`. Nothing runs: the step's forward, backward and update compile
// into one program when something is read.
//
// The registry and the pending list are guarded by the GIL.
//
//===----------------------------------------------------------------------===//

#include "PyTensor.h"

#include "llvm/ADT/DenseSet.h"

#include <nanobind/stl/vector.h>

#include <algorithm>
#include <optional>

using namespace kiln;
using namespace kiln::python;

namespace {
/// The leaves that require grad, in the order they asked for it (so that
/// the vjp's inputs, and hence its program, are the same every step).
std::vector<PyTensor *> &getRegistry() {
  static auto *registry = new std::vector<PyTensor *>();
  return *registry;
}

/// What the next materialization computes too.
std::vector<std::weak_ptr<const TraceNode>> &getPending() {
  static auto *pending = new std::vector<std::weak_ptr<const TraceNode>>();
  return *pending;
}

/// What the next materialization computes too, but that never makes a
/// gradient or an optimizer step compute earlier (the random generator's
/// state: no gradient needs it).
std::vector<std::weak_ptr<const TraceNode>> &getCompanions() {
  static auto *companions = new std::vector<std::weak_ptr<const TraceNode>>();
  return *companions;
}

/// The nodes `root`'s value is computed from (up to nodes with values).
llvm::DenseSet<const TraceNode *> collectReachable(const NodeRef &root) {
  llvm::DenseSet<const TraceNode *> seen;
  llvm::SmallVector<NodeRef, 32> stack{root};
  llvm::SmallVector<NodeRef, 4> operands;
  while (!stack.empty()) {
    NodeRef node = stack.pop_back_val();
    if (!seen.insert(node.get()).second)
      continue;
    operands.clear();
    // No gradient flows through a stop_gradient (detach, no_grad).
    if (!node->isLeafOrGetOperands(operands) &&
        node->getOp() != TraceOp::StopGradient)
      stack.append(operands.begin(), operands.end());
  }
  return seen;
}

[[noreturn]] void fail(const std::string &message) {
  throw nb::value_error(message.c_str());
}

/// Whether a pending tensor that has no value yet is among `nodes`.
bool hasPendingIn(const llvm::DenseSet<const TraceNode *> &nodes) {
  for (const std::weak_ptr<const TraceNode> &weak : getPending())
    if (NodeRef node = weak.lock())
      if (!node->hasValue() && nodes.contains(node.get()))
        return true;
  return false;
}

bool hasPending() {
  for (const std::weak_ptr<const TraceNode> &weak : getPending())
    if (NodeRef node = weak.lock())
      if (!node->hasValue())
        return true;
  return false;
}
} // namespace

void kiln::python::flushPending() {
  // A gradient recorded on parameters that an earlier step left pending
  // would carry that step's whole program in its vjp (and the next step's
  // vjp would carry this one's): compute them first.
  if (hasPending())
    materialize({});
}

PyTensor::~PyTensor() {
  unlink();
  if (!registered)
    return;
  std::vector<PyTensor *> &registry = getRegistry();
  registry.erase(std::remove(registry.begin(), registry.end(), this),
                 registry.end());
}

void kiln::python::updateRegistration(PyTensor &self) {
  bool wanted = self.requiresGrad && self.isLeaf;
  if (wanted == self.registered)
    return;
  std::vector<PyTensor *> &registry = getRegistry();
  if (wanted)
    registry.push_back(&self);
  else
    registry.erase(std::remove(registry.begin(), registry.end(), &self),
                   registry.end());
  self.registered = wanted;
}

void kiln::python::backward(PyTensor &output, nb::handle gradient,
                            bool createGraph) {
  if (!output.requiresGrad)
    fail("backward: the tensor does not require grad (no tensor it is "
         "computed from has requires_grad=True)");
  std::vector<Tensor> cotangents;
  if (!gradient.is_none()) {
    PyTensor *g = nullptr;
    if (!nb::try_cast<PyTensor *>(gradient, g, false) || !g)
      throw nb::type_error("backward: gradient must be a kiln.Tensor");
    cotangents.push_back(g->value);
  } else if (output.value.getNode()->getNumElements() != 1) {
    fail("backward: a gradient can be left out only for an output of one "
         "element, not " +
         getTensorTypeString(output.value.getDType(), output.value.getShape()) +
         ": pass gradient=");
  }
  std::vector<PyTensor *> leaves;
  std::vector<Tensor> inputs;
  llvm::DenseSet<const TraceNode *> reachable =
      collectReachable(output.value.getNode());
  if (output.isLeaf) {
    leaves.push_back(&output);
    inputs.push_back(output.value);
  } else {
    for (PyTensor *leaf : getRegistry())
      if (reachable.contains(leaf->value.getNode().get())) {
        leaves.push_back(leaf);
        inputs.push_back(leaf->value);
      }
  }
  // Pending tensors this gradient would recompute (an earlier step's
  // parameters) are computed first; others (the random generator's next
  // state) wait for the next read, in the step's one program.
  if (hasPendingIn(reachable))
    materialize({});
  if (leaves.empty())
    fail("backward: no leaf that requires grad reaches this tensor (was it "
         "computed from a tensor whose value was read, or replaced, "
         "before backward?)");
  std::vector<Tensor> grads = grad({output.value}, inputs, cotangents);
  for (auto [leaf, g] : llvm::zip(leaves, grads)) {
    if (!g.ok())
      fail(g.getError());
    Tensor sum = g;
    leaf->willChange();
    if (!leaf->grad.is_none())
      sum = nb::cast<PyTensor &>(leaf->grad).value + g;
    leaf->grad = nb::cast(checked(std::move(sum), createGraph));
  }
}

void kiln::python::markPending(const Tensor &t) {
  if (t.ok() && !t.getNode()->hasValue())
    getPending().push_back(t.getNode());
}

namespace {
/// The computed (non-leaf) nodes without a value that `root` needs: the
/// work computing it would do. With `readers`, the nodes reached through
/// operands alone (what `root` reads) are also added there.
llvm::DenseSet<const TraceNode *>
collectPendingWork(const NodeRef &root,
                   llvm::DenseSet<const TraceNode *> *readers = nullptr) {
  llvm::DenseSet<const TraceNode *> work;
  // (node, reached through operands alone)
  llvm::SmallVector<std::pair<NodeRef, bool>, 32> stack{{root, true}};
  llvm::SmallVector<NodeRef, 4> operands;
  while (!stack.empty()) {
    auto [node, read] = stack.pop_back_val();
    if (node->hasValue())
      continue;
    read = read && readers;
    bool newlyRead = read && readers->insert(node.get()).second;
    bool fresh = work.insert(node.get()).second;
    if (!fresh && !newlyRead)
      continue;
    operands.clear();
    std::shared_ptr<const VjpCall> call;
    bool lost = false;
    if (node->isLeafOrGetOperands(operands, ~uint64_t(0), &call, &lost)) {
      work.erase(node.get());
      if (readers)
        readers->erase(node.get());
      continue;
    }
    // A vjp's callee recomputes the forward (the compiler merges it with
    // the caller's): work the vjp shares, though it reads none of it. A
    // lazy one not settled has that forward's outputs and inputs as its
    // first operands.
    size_t forwardOperands =
        node->isLazyVjp() && !call
            ? static_cast<size_t>(node->getAttrs()[0] + node->getAttrs()[1])
            : 0;
    for (auto [i, operand] : llvm::enumerate(operands))
      stack.push_back({operand, read && i >= forwardOperands});
    const TraceProgram *callee =
        call ? call->callee.get() : node->getCallee().get();
    if (callee && fresh)
      for (const TraceProgram::Entry &entry : callee->entries)
        if (!entry.isParameter)
          stack.push_back({entry.node, false});
  }
  return work;
}

/// The read rule: a materialization also computes every live tensor that
/// shares pending work with what it computes, unless that tensor reads one
/// of its results through its operands (then it is later work: the next
/// step's forward, say; a vjp's recomputed forward reads nothing).
/// So the 13 gradients of one backward, or a loss and the update computed
/// from it, come from one program, and no tensor's work runs twice. A
/// tensor that requires grad is computed through its snapshot, so that
/// its recipe stays for backward().
void addLiveSharers(std::vector<Tensor> &all) {
  llvm::DenseSet<const TraceNode *> work, roots;
  for (const Tensor &t : all) {
    if (!t.ok())
      continue;
    roots.insert(t.getNode().get());
    llvm::DenseSet<const TraceNode *> more = collectPendingWork(t.getNode());
    work.insert(more.begin(), more.end());
  }
  if (work.empty())
    return;
  std::vector<PyTensor *> candidates;
  for (PyTensor *t = PyTensor::firstLive; t; t = t->nextLive)
    if (t->value.ok() && !t->value.getNode()->hasValue() &&
        !roots.contains(t->value.getNode().get()))
      candidates.push_back(t);
  // Creation order, repeated while tensors join: a tensor may share work
  // only with one that joined after it was looked at.
  std::vector<bool> joined(candidates.size(), false);
  for (bool changed = true; changed;) {
    changed = false;
    for (auto [i, t] : llvm::enumerate(candidates)) {
      const TraceNode *node = t->value.getNode().get();
      if (joined[i] || roots.contains(node))
        continue;
      llvm::DenseSet<const TraceNode *> reads;
      llvm::DenseSet<const TraceNode *> own =
          collectPendingWork(t->value.getNode(), &reads);
      bool shares = llvm::any_of(
          own, [&](const TraceNode *n) { return work.contains(n); });
      bool readsResult = llvm::any_of(reads, [&](const TraceNode *n) {
        return n != node && roots.contains(n);
      });
      if (!shares || readsResult)
        continue;
      joined[i] = changed = true;
      work.insert(own.begin(), own.end());
      roots.insert(node);
      if (t->requiresGrad && !t->isLeaf) {
        if (!t->snapshot.ok())
          t->snapshot = reshape(t->value, t->value.getShape());
        all.push_back(t->snapshot);
      } else {
        all.push_back(t->value);
      }
    }
  }
}
} // namespace

void kiln::python::materialize(llvm::ArrayRef<Tensor> tensors) {
  std::vector<Tensor> all(tensors.begin(), tensors.end());
  for (auto *list : {&getPending(), &getCompanions()}) {
    for (const std::weak_ptr<const TraceNode> &weak : *list)
      if (NodeRef node = weak.lock())
        if (!node->hasValue())
          all.push_back(Tensor::make(node));
    list->clear();
  }
  addLiveSharers(all);
  llvm::Error error = [&] {
    nb::gil_scoped_release noGil; // compiling and running take a while
    return sync(all);
  }();
  if (error)
    fail(llvm::toString(std::move(error)));
}

std::shared_ptr<const HostTensor>
kiln::python::materializedValue(PyTensor &t, bool noteRead) {
  if (!t.value.ok())
    fail(t.value.getError());
  // Reading a computed tensor that requires grad must keep its recipe for
  // backward(): read a copy (a reshape to its own shape, which the
  // compiler folds away).
  if (noteRead)
    noteValueRead();
  // (A value already computed has no recipe left to keep.)
  Tensor &read = t.requiresGrad && !t.isLeaf && !t.value.getNode()->hasValue()
                     ? t.snapshot
                     : t.value;
  if (&read == &t.snapshot && !t.snapshot.ok())
    t.snapshot = reshape(t.value, t.value.getShape());
  if (!read.getNode()->hasValue())
    materialize({read});
  // A value on the device is copied to the host once.
  llvm::Expected<std::shared_ptr<const HostTensor>> host =
      read.getNode()->getHostData();
  if (!host)
    fail(llvm::toString(host.takeError()));
  return *host;
}

void kiln::python::bindAutograd(nb::module_ &m) {
  m.def(
      "_mark_pending",
      [](nb::handle tensors) {
        for (nb::handle t : tensors)
          markPending(nb::cast<PyTensor &>(t).value);
      },
      "Internal (optimizers): compute these with the next materialization.");
  m.def(
      "_mark_companion",
      [](nb::handle tensors) {
        for (nb::handle t : tensors) {
          const Tensor &value = nb::cast<PyTensor &>(t).value;
          if (value.ok() && !value.getNode()->hasValue())
            getCompanions().push_back(value.getNode());
        }
      },
      "Internal (the random generator): compute these with the next "
      "materialization, without making gradients or steps compute first.");
  // kiln.utils.checkpoint: the nodes recorded inside form a checkpoint
  // segment (kiln::CheckpointScope), which gradients recompute.
  struct CheckpointContext {
    std::optional<CheckpointScope> scope;
  };
  nb::class_<CheckpointContext>(m, "_CheckpointScope")
      .def(nb::init<>())
      .def("__enter__",
           [](CheckpointContext &context) {
             if (context.scope)
               throw nb::value_error("a checkpoint scope is entered once");
             context.scope.emplace();
           })
      .def("__exit__",
           [](CheckpointContext &context, nb::args) { context.scope.reset(); });
  m.def("_flush_pending", &flushPending,
        "Internal (optimizers): compute what earlier steps left pending.");
  m.def("_has_pending", &hasPending);
}
