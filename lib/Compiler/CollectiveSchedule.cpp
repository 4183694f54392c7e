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
// steps (which may define the sizes of the collective's views) and other
// collectives are never crossed, so every rank starts its collectives in
// the order the program has them.
//
//===----------------------------------------------------------------------===//

#include "Compiler/HostProgram.h"

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

/// Whether a collective's start or wait may move across `step` when it
/// uses neither of its buffers.
static bool isMovableAcross(const HostProgram::Step &step) {
  using StepKind = HostProgram::StepKind;
  switch (step.kind) {
  case StepKind::Alloc:
  case StepKind::Free:
  case StepKind::Kernel:
  case StepKind::RuntimeCall:
  case StepKind::Copy:
  case StepKind::Launch:
    return true;
  default:
    return false;
  }
}

void HostProgram::scheduleCollectives() {
  int32_t requests = 0;
  for (size_t i = 0; i < steps.size(); ++i) {
    if (steps[i].kind != StepKind::Collective || steps[i].slot >= 0)
      continue;
    Step start = steps[i];
    start.slot = requests++;
    Step wait{StepKind::CollectiveWait};
    wait.slot = start.slot;
    wait.views = start.views;
    int32_t in = start.views[0].slot, out = start.views[1].slot;
    // The wait: before the next use of either buffer, or at the end.
    size_t waitAt = i + 1;
    while (waitAt < steps.size() && isMovableAcross(steps[waitAt]) &&
           !usesSlot(steps[waitAt], in, out))
      ++waitAt;
    // The start: after the last use of either buffer.
    size_t startAt = i;
    while (startAt > 0 && isMovableAcross(steps[startAt - 1]) &&
           !usesSlot(steps[startAt - 1], in, out))
      --startAt;
    steps.insert(steps.begin() + waitAt, std::move(wait));
    steps.erase(steps.begin() + i);
    steps.insert(steps.begin() + startAt, std::move(start));
    // Past the wait is where the next collective is looked for.
    i = waitAt - 1;
  }
}
