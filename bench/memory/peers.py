"""PyTorch eager's side of bench/memory/run.py (the peers python of
../shared/peers/setup.sh): the same GPT step (torch.nn, AdamW,
clip_grad_norm_), plain or with torch.utils.checkpoint on every block, one
process per mode; the process's peak RSS as workload.measure reads it."""

import json
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "gpt"))
from torch_gpt import adamw, make_gpt, make_step  # noqa: E402
from workload import CLIP, CONFIG, LR, STEPS, WARMUP, batches, \
    load_data, measure  # noqa: E402


def main():
    import torch
    mode = sys.argv[1]
    torch.set_num_threads(2)
    torch.manual_seed(0)
    data, vocab = load_data()
    model = make_gpt(torch, vocab, dropout=0.0,
                     checkpoint_blocks=mode == "checkpoint", **CONFIG)
    opt = adamw(torch, model, LR)

    step = make_step(torch, model, opt, CLIP)

    result = measure(step, batches(data, WARMUP + STEPS))
    result["mode"] = mode
    print(json.dumps(result))


if __name__ == "__main__":
    main()
