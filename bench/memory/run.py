#!/usr/bin/env python3
"""Peak memory of a training step (issue 41): the GPT of
examples/python/train_gpt.py (workload.py's sizes), plain and with every
block checkpointed, in kiln and in PyTorch eager, each mode in a process of
its own; prints one JSON line.

kiln (plain and checkpointed, with its default automatic
rematerialization on the CPU, and plain with KILN_REMAT=none): its own
peak counter over the steps above what was live before them (parameters
and optimizer state): gradients, activations, temporaries; and the
process's peak RSS over the steps (VmHWM reset after the warm-up).
PyTorch eager (the peers python of ../shared/peers/setup.sh): its heap's
peak over the steps above what was allocated before them, read after every
ATen op (peers.py), and the peak RSS, measured as kiln's. Both keep freed
blocks for reuse, so the RSS grows in the warm-up and hardly in the steps:
the counters are the figures to compare. Goals: kiln's peak at most
PyTorch's; with checkpoints, activation memory at most half of what it is
without.

Usage: bench/memory/run.py [--build DIR] [--peers-python PY]
"""
import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from common import ROOT, peers_python, run_json  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--peers-python", default=None)
    args = ap.parse_args()
    python_dir = os.path.join(os.path.abspath(args.build), "python")
    peers = args.peers_python or peers_python()
    result = {"kiln": {}, "torch_eager": {}}
    for mode in ("plain", "checkpoint", "no_remat"):
        # An empty KILN_REMAT is the default (auto on the CPU).
        result["kiln"][mode] = run_json(
            "/usr/bin/python3", [os.path.join(HERE, "kiln_side.py"), mode],
            [python_dir, HERE],
            {"KILN_REMAT": "none" if mode == "no_remat" else ""})
        if mode != "no_remat":
            result["torch_eager"][mode] = run_json(
                peers, [os.path.join(HERE, "peers.py"), mode], [HERE])
    # (name, numerator (side, mode, key), denominator (side, mode, key))
    ratios = [
        ("kiln_plain_peak_vs_torch_heap_peak",
         ("kiln", "plain", "kiln_step_peak_bytes"),
         ("torch_eager", "plain", "heap_step_peak_bytes")),
        ("kiln_no_remat_peak_vs_torch_heap_peak",
         ("kiln", "no_remat", "kiln_step_peak_bytes"),
         ("torch_eager", "plain", "heap_step_peak_bytes")),
        ("kiln_peak_vs_torch_rss_peak",
         ("kiln", "plain", "kiln_step_peak_bytes"),
         ("torch_eager", "plain", "rss_step_peak_bytes")),
        ("kiln_checkpoint_activation_ratio",
         ("kiln", "checkpoint", "kiln_activation_bytes"),
         ("kiln", "plain", "kiln_activation_bytes")),
        ("kiln_remat_activation_ratio",
         ("kiln", "plain", "kiln_activation_bytes"),
         ("kiln", "no_remat", "kiln_activation_bytes")),
        ("torch_checkpoint_heap_ratio",
         ("torch_eager", "checkpoint", "heap_step_peak_bytes"),
         ("torch_eager", "plain", "heap_step_peak_bytes")),
    ]
    goals = {}
    for name, (a, am, ak), (b, bm, bk) in ratios:
        try:
            goals[name] = round(result[a][am][ak] / result[b][bm][bk], 2)
        except (KeyError, TypeError, ZeroDivisionError):
            pass  # a side failed: its error is in the result
    result["goals"] = goals
    print(json.dumps(result))


if __name__ == "__main__":
    main()
