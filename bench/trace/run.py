#!/usr/bin/env python3
"""The lazy tensors' host overhead: build/bin/kiln-bench-trace and its peers
(bench/trace/peers.py: the same step in PyTorch eager and in a JAX jit), in
one run. Prints kiln's JSON line with the peers' fields (peer_*) and the
goals' verdicts added.

Usage: bench/trace/run.py [STEPS] [--build DIR] [--peers-python PY]
"""
import argparse
import json
import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
PEERS = os.path.normpath(os.path.join(ROOT, "..", "shared", "peers"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("steps", nargs="?", type=int, default=1000)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--peers-python", default=None)
    args = ap.parse_args()
    kiln = subprocess.run([os.path.join(args.build, "bin", "kiln-bench-trace"),
                           str(args.steps)], check=True, capture_output=True,
                          text=True)
    result = json.loads(kiln.stdout)
    py = args.peers_python
    if not py:
        py = subprocess.run(["bash", os.path.join(PEERS, "setup.sh")],
                            check=True, capture_output=True,
                            text=True).stdout.strip()
    peer = subprocess.run([py, os.path.join(HERE, "peers.py"), str(args.steps)],
                          capture_output=True, text=True)
    try:
        for key, value in json.loads(peer.stdout).items():
            result["peer_" + key] = value
    except json.JSONDecodeError:
        result["peer_error"] = peer.stderr.strip()[-300:]
    result["goal_ns_per_op_met"] = result["ns_per_op"] <= 300
    result["goal_hit_step_met"] = result["hit_step_us"] <= result["hit_step_goal_us"]
    result["goal_compiles_met"] = result["compiles"] == 1
    # Issue 14's goals: recording at most 100 ns per op, a cache hit at
    # most 3 us, a kiln::Jit replay at most 5 us of host time.
    result["goal_ns_per_op_100_met"] = result["ns_per_op"] <= 100
    result["goal_hit_step_3us_met"] = result["hit_step_us"] <= 3
    result["goal_jit_replay_5us_met"] = result["jit_replay_us"] <= 5
    for peer_key in ("torch_eager", "jax_jit"):
        us = result.get(f"peer_{peer_key}_step_us")
        if us:
            result[f"step_speedup_vs_{peer_key}"] = round(us / result["step_us"], 2)
            result[f"jit_step_speedup_vs_{peer_key}"] = round(
                us / result["jit_step_us"], 2)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
