"""kiln's side of bench/gpt/run.py: the step in plain lazy mode and under
kiln.jit, with the compiles counted from step 3 on."""

import importlib.util
import json
import os
import sys

import kiln
from workload import (BATCH, CLIP, CONFIG, DROPOUT, LR, MIN_LR, batches,
                    load_data, time_steps)

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
spec = importlib.util.spec_from_file_location(
    "train_gpt", os.path.join(ROOT, "examples", "python", "train_gpt.py"))
gpt = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gpt)


def measure(jit, steps, warmup):
    data, vocab = load_data()
    kiln.manual_seed(0)
    model = gpt.GPT(vocab, dropout=DROPOUT, **CONFIG)
    opt = gpt.configure(model, LR, 0.1)
    sched = kiln.optim.lr_scheduler.CosineAnnealingLR(
        opt, T_max=warmup + steps, eta_min=MIN_LR)
    inner = gpt.make_step(model, opt, CLIP)
    if jit:
        inner = kiln.jit(inner)
    counts = {"compiles": [], "runs": []}

    def step(x, y):
        before = kiln.metrics()
        loss = inner(x, y) if jit else inner(kiln.from_numpy(x),
                                             kiln.from_numpy(y))
        value = float(loss)
        sched.step()
        after = kiln.metrics()
        for key in counts:
            counts[key].append(after[key] - before[key])
        return value

    result = time_steps(step, batches(data, 32), warmup, steps)
    result["compiles_from_step_3"] = int(sum(counts["compiles"][3:]))
    result["runs_per_step"] = max(counts["runs"][3:])
    return result


def main():
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 30
    out = {"batch": BATCH, **CONFIG,
           "plain": measure(False, steps, 5),
           "jit": measure(True, steps, 5)}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
