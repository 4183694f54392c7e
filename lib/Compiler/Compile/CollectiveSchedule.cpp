//===- CollectiveSchedule.cpp - collectives overlap the other steps -------===//
//
// Each collective step becomes a start and a wait, moved apart as far as
// the buffers allow: the start goes back to just after the last step that
// touches its operand's or result's buffer (the kernel that finished the
// gradient, the result's allocation), the wait forward to just before the
// next one (the update that reads the averaged gradient). The steps in
// between run while the ranks communicate: a gradient bucket is reduced
// while the rest of the backward runs.
//
// A step's views do not say whether it reads or writes, so any view of
// either buffer, or its allocation or release, is a use. Index and check
// steps (which may define the sizes of the collective's views) are never
// crossed. Starts keep their order, and so do waits, so every rank starts
// and ends its collectives in the order the program has them; a wait may
// pass later starts, so several buckets are in flight at once.
//
//===----------------------------------------------------------------------===//

#include "Compiler/Compile/HostProgram.h"

using namespace kiln;

/// Whether `step` uses the buffer of slot `a` or `b`.
static bool usesSlot(const HostProgram::Step &step, int32_t a, int32_t b) {
  using StepKind = HostProgram::StepKind;
  if ((step.kind == StepKind::Alloc || step.kind == StepKind::Free) &&
      (step.slot == a || step.slot == b))
    return true;
  return llvm::any_of(step.views, [&](const HostProgram::View &view) {
    return view.slot == a || view.slot == b;
  });
}

/// Whether `moving`, a collective's start or wait, may move across `other`:
/// a step that uses neither of its buffers, and that is no index or check
/// step. A wait never passes another wait, nor a start another start, so
/// every rank starts and ends its collectives in the program's order; a
/// wait may pass a later collective's start (both are then in flight).
static bool canPass(const HostProgram::Step &moving,
                    const HostProgram::Step &other) {
  using StepKind = HostProgram::StepKind;
  switch (other.kind) {
  case StepKind::Alloc:
  case StepKind::Free:
  case StepKind::Kernel:
  case StepKind::RuntimeCall:
  case StepKind::Copy:
  case StepKind::Launch:
    break;
  case StepKind::Collective:
  case StepKind::CollectiveWait:
    if (other.kind == moving.kind)
      return false;
    break;
  default:
    return false;
  }
  return !usesSlot(other, moving.views[0].slot, moving.views[1].slot);
}

void HostProgram::scheduleCollectives() {
  // Each collective becomes a start (its slot is its request) and a wait.
  int32_t requests = 0;
  for (size_t i = 0; i < steps.size(); ++i) {
    if (steps[i].kind != StepKind::Collective || steps[i].slot >= 0)
      continue;
    steps[i].slot = requests++;
    Step wait{StepKind::CollectiveWait};
    wait.slot = steps[i].slot;
    wait.views = steps[i].views;
    steps.insert(steps.begin() + i + 1, std::move(wait));
    ++i;
  }
  // The waits go down to just before the next use of their buffers, the
  // last one first.
  for (size_t i = steps.size(); i-- > 0;) {
    if (steps[i].kind != StepKind::CollectiveWait)
      continue;
    for (size_t j = i; j + 1 < steps.size() && canPass(steps[j], steps[j + 1]);
         ++j)
      std::swap(steps[j], steps[j + 1]);
  }
  // The starts go up to just after the last use of their buffers, the
  // first one first.
  for (size_t i = 0; i < steps.size(); ++i) {
    if (steps[i].kind != StepKind::Collective || steps[i].slot < 0)
      continue;
    for (size_t j = i; j > 0 && canPass(steps[j], steps[j - 1]); --j)
      std::swap(steps[j], steps[j - 1]);
  }
}
