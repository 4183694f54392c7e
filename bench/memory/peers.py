"""PyTorch eager's side of bench/memory/run.py (the peers python of
../shared/peers/setup.sh): the same GPT step (torch.nn, AdamW,
clip_grad_norm_), plain or with torch.utils.checkpoint on every block, one
process per mode; the process's peak RSS as workload.measure reads it, and
its allocator's peak over the steps, as kiln's counter is read: the heap's
allocated bytes (glibc's mallinfo2, every arena and mmapped block) after
every ATen op of the steps, forward and backward (a TorchDispatchMode),
above what was allocated before them (the parameters and the optimizer
state; the step frees the gradients, zero_grad(set_to_none=True))."""

import ctypes
import json
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "gpt"))
from torch_gpt import adamw, make_gpt, make_step  # noqa: E402
from workload import CLIP, CONFIG, LR, STEPS, WARMUP, batches, \
    load_data, measure  # noqa: E402


class _Mallinfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks",
        "fsmblks", "uordblks", "fordblks", "keepcost")]


def heap_bytes():
    """What malloc has handed out and not taken back: the arenas' chunks in
    use and the mmapped blocks."""
    libc = ctypes.CDLL("libc.so.6")
    libc.mallinfo2.restype = _Mallinfo2
    info = libc.mallinfo2()
    return info.uordblks + info.hblkhd


def heap_peak_mode(torch):
    """A TorchDispatchMode that reads heap_bytes after every op."""
    from torch.utils._python_dispatch import TorchDispatchMode

    class HeapPeak(TorchDispatchMode):
        peak = 0

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            # torch 1.13 hands a mode the checkpoint's saved Python scalars
            # (a wrapped number) to detach as floats: a 0-dim tensor then.
            if func is torch.ops.aten.detach.default and not isinstance(
                    args[0], torch.Tensor):
                return torch.tensor(args[0])
            out = func(*args, **(kwargs or {}))
            HeapPeak.peak = max(HeapPeak.peak, heap_bytes())
            return out
    return HeapPeak


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
    mode_class = heap_peak_mode(torch)
    heap = {}

    def before_steps():
        heap["base"] = heap_bytes()
        mode_class.peak = heap["base"]

    def traced(*args):
        if "base" not in heap:
            return step(*args)
        with mode_class():
            return step(*args)

    result = measure(traced, batches(data, WARMUP + STEPS), before_steps)
    result["mode"] = mode
    result["heap_step_peak_bytes"] = mode_class.peak - heap["base"]
    print(json.dumps(result))


if __name__ == "__main__":
    main()
