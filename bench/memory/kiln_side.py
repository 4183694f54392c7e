"""kiln's side of bench/memory/run.py: one process per mode (plain, every
block checkpointed, or plain with KILN_REMAT=none, which the caller sets):
kiln's own peak counter over the steps (above
what was live before them: the parameters and the optimizer state), the
gradients' bytes, and the process's peak RSS, as workload.measure reads
it."""

import importlib.util
import json
import os
import sys

import kiln
from workload import BATCH, CLIP, CONFIG, LR, STEPS, WARMUP, batches, \
    load_data, measure

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
spec = importlib.util.spec_from_file_location(
    "train_gpt", os.path.join(ROOT, "examples", "python", "train_gpt.py"))
gpt = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gpt)


def main():
    mode = sys.argv[1]
    data, vocab = load_data()
    kiln.manual_seed(0)
    if (mode == "no_remat") != (os.environ.get("KILN_REMAT") == "none"):
        raise SystemExit("mode no_remat, and only it, needs KILN_REMAT=none")
    model = gpt.GPT(vocab, dropout=0.0, checkpoint_blocks=mode == "checkpoint",
                    **CONFIG)
    opt = gpt.configure(model, LR, 0.1)
    inner = gpt.make_step(model, opt, CLIP)
    step = lambda x, y: float(inner(kiln.tensor(x), kiln.tensor(y)))
    live = {}

    def before_steps():
        kiln.reset_peak_memory_stats()
        live["bytes"] = kiln.metrics()["live_bytes"]

    result = measure(step, batches(data, WARMUP + STEPS), before_steps)
    params = sum(p.numel() * 4 for p in model.parameters())
    peak = kiln.metrics()["peak_bytes"] - live["bytes"]
    result.update({
        "mode": mode,
        "parameter_bytes": params,
        # Above the parameters and the optimizer state (live before the
        # steps): the gradients, the activations and the temporaries.
        "kiln_step_peak_bytes": peak,
        "kiln_activation_bytes": peak - params,
    })
    print(json.dumps(result))


if __name__ == "__main__":
    main()
