#!/usr/bin/env python3
"""The GPT training step of examples/python/train_gpt.py against its peers,
in one run; prints one JSON line.

kiln (plain lazy and kiln.jit, with KILN_REMAT=none and again with
KILN_REMAT=auto) runs in Debian's python3 with PYTHONPATH=BUILD/python;
PyTorch eager and jax.jit in the peers python of
../shared/peers/setup.sh. Goals (issue 38): kiln.jit at least 3x faster
than PyTorch eager and at least as fast as jax.jit, and 0 compiles from
step 3 on (with dropout and a cosine learning rate).

Usage: bench/gpt/run.py [STEPS] [--build DIR] [--peers-python PY]
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
    ap.add_argument("steps", nargs="?", type=int, default=30)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--peers-python", default=None)
    args = ap.parse_args()
    kiln, kiln_remat = (
        run_json("/usr/bin/python3",
                 [os.path.join(HERE, "kiln_side.py"), str(args.steps)],
                 [os.path.join(os.path.abspath(args.build), "python"), HERE],
                 {"KILN_REMAT": remat})
        for remat in ("none", "auto"))
    peers = run_json(args.peers_python or peers_python(),
                     [os.path.join(HERE, "peers.py"), str(args.steps)], [HERE])
    result = {"steps": args.steps, "kiln": kiln, "kiln_remat": kiln_remat,
              "peers": peers}
    jit = kiln.get("jit", {}).get("median_ms")
    torch = peers.get("torch_eager", {}).get("median_ms")
    jax = peers.get("jax_jit", {}).get("median_ms")
    goals = {}
    if jit and torch:
        goals["jit_speedup_vs_torch_eager"] = round(torch / jit, 2)
        goals["jit_3x_torch_eager"] = torch >= 3 * jit
    remat_jit = kiln_remat.get("jit", {}).get("median_ms")
    if jit and remat_jit:
        # KILN_REMAT=auto: the time it costs (its memory: bench/memory).
        goals["remat_jit_time_ratio"] = round(remat_jit / jit, 2)
    if jit and jax:
        goals["jit_speedup_vs_jax_jit"] = round(jax / jit, 2)
        goals["jit_as_fast_as_jax_jit"] = jit <= jax
    if kiln.get("jit"):
        goals["no_compiles_from_step_3"] = \
            kiln["jit"]["compiles_from_step_3"] == 0 and \
            kiln["plain"]["compiles_from_step_3"] == 0
    result["goals"] = goals
    print(json.dumps(result))


if __name__ == "__main__":
    main()
