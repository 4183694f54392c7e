#!/usr/bin/env python3
"""The GPT training step of examples/python/train_gpt.py against its peers,
in one run; prints one JSON line.

kiln (plain lazy and kiln.jit) runs in Debian's python3 with
PYTHONPATH=BUILD/python; PyTorch eager and jax.jit in the peers python of
../shared/peers/setup.sh. Goals (issue 38): kiln.jit at least 3x faster
than PyTorch eager and at least as fast as jax.jit, and 0 compiles from
step 3 on (with dropout and a cosine learning rate).

Usage: bench/gpt/run.py [STEPS] [--build DIR] [--peers-python PY]
"""
import argparse
import json
import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
PEERS = os.path.normpath(os.path.join(ROOT, "..", "shared", "peers"))


def run_json(python, script, steps, extra_path=""):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (extra_path, HERE) if p)
    out = subprocess.run([python, os.path.join(HERE, script), str(steps)],
                         capture_output=True, text=True, env=env)
    if out.returncode != 0:
        return {"error": out.stderr.strip()[-600:]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("steps", nargs="?", type=int, default=30)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--peers-python", default=None)
    args = ap.parse_args()
    kiln = run_json("/usr/bin/python3", "kiln_side.py", args.steps,
                    os.path.join(os.path.abspath(args.build), "python"))
    py = args.peers_python or subprocess.run(
        ["bash", os.path.join(PEERS, "setup.sh")], check=True,
        capture_output=True, text=True).stdout.strip().splitlines()[-1]
    peers = run_json(py, "peers.py", args.steps)
    result = {"steps": args.steps, "kiln": kiln, "peers": peers}
    jit = kiln.get("jit", {}).get("median_ms")
    torch = peers.get("torch_eager", {}).get("median_ms")
    jax = peers.get("jax_jit", {}).get("median_ms")
    goals = {}
    if jit and torch:
        goals["jit_speedup_vs_torch_eager"] = round(torch / jit, 2)
        goals["jit_3x_torch_eager"] = torch >= 3 * jit
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
