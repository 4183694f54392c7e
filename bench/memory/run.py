#!/usr/bin/env python3
"""Peak memory of a training step (issue 41): the GPT of
examples/python/train_gpt.py (workload.py's sizes), plain and with every
block checkpointed, in kiln and in PyTorch eager, each mode in a process of
its own; prints one JSON line.

kiln: its own peak counter over the steps above what was live before them
(parameters and optimizer state): gradients, activations, temporaries;
and the process's peak RSS over the steps (VmHWM reset after the warm-up).
PyTorch eager (the peers python of ../shared/peers/setup.sh): the peak RSS,
measured the same way. kiln's buffer cache keeps freed blocks for reuse,
so its RSS grows in the warm-up and hardly in the steps: its counter is the
figure to compare. Goals: kiln's peak at most PyTorch's; with checkpoints,
activation memory at most half of what it is without.

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
    for mode in ("plain", "checkpoint"):
        result["kiln"][mode] = run_json(
            "/usr/bin/python3", [os.path.join(HERE, "kiln_side.py"), mode],
            [python_dir, HERE])
        result["torch_eager"][mode] = run_json(
            peers, [os.path.join(HERE, "peers.py"), mode], [HERE])
    kiln, torch = result["kiln"], result["torch_eager"]
    goals = {}
    try:
        goals["kiln_peak_vs_torch_rss_peak"] = round(
            kiln["plain"]["kiln_step_peak_bytes"] /
            torch["plain"]["rss_step_peak_bytes"], 2)
        goals["kiln_checkpoint_activation_ratio"] = round(
            kiln["checkpoint"]["kiln_activation_bytes"] /
            kiln["plain"]["kiln_activation_bytes"], 2)
        goals["torch_checkpoint_rss_ratio"] = round(
            torch["checkpoint"]["rss_step_peak_bytes"] /
            torch["plain"]["rss_step_peak_bytes"], 2)
    except (KeyError, TypeError, ZeroDivisionError):
        pass  # a side failed: its error is in the result
    result["goals"] = goals
    print(json.dumps(result))


if __name__ == "__main__":
    main()
