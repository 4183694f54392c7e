#!/usr/bin/env python3
"""kiln from Python against its peers, in one run; prints one JSON line.

- record: per-op cost of recording from Python (4x4 f32 tensors: tensor +
  tensor, tensor * number, tanh, @), against PyTorch eager's per-op cost.
- lstm, mlp: whole training steps, microseconds per step: an LSTM language
  model step (as kiln-lstm-train) and the digits MLP step at batch 64, each
  in kiln's plain lazy mode and under kiln.jit, against PyTorch eager and
  one jax.jit call. jit_host_us is a replay's time less its programs' run
  time (binding, rebinding, new tensors, the Python call);
  jit_run_host_us is the programs' run time less their kernels' (timed in
  a separate pass): the host program and the executable's own checks.

kiln runs in Debian's python3 with PYTHONPATH=BUILD/python (kiln_side.py);
the peers in the peers python of ../shared/peers/setup.sh (peers.py).

Usage: bench/python/run.py [STEPS] [--build DIR] [--peers-python PY]
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
        return {"error": out.stderr.strip()[-400:]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def ratio(a, b):
    return round(a / b, 2) if a and b else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("steps", nargs="?", type=int, default=300)
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

    torch = peers.get("torch_eager", {})
    jax = peers.get("jax_jit", {})
    goals = {}
    record = kiln.get("record", {})
    if record and torch.get("record"):
        worst = max(record.values())
        goals["record_ns_per_op_max"] = round(worst, 1)
        goals["record_at_most_1us"] = worst <= 1000
        goals["record_vs_torch_per_op"] = {
            k: ratio(torch["record"][k], v) for k, v in record.items()}
        goals["record_at_most_a_fifth_of_torch"] = all(
            torch["record"][k] >= 5 * v for k, v in record.items())
    for model in ("lstm", "mlp", "mlp_sgd", "adam16", "adam64"):
        k = kiln.get(model)
        if not k:
            continue
        t, j = torch.get(f"{model}_step_us"), jax.get(f"{model}_step_us")
        goals[f"{model}_plain_speedup_vs_torch"] = ratio(t, k["plain_step_us"])
        goals[f"{model}_plain_5x_torch"] = bool(t) and \
            t >= 5 * k["plain_step_us"]
        goals[f"{model}_jit_speedup_vs_jax"] = ratio(j, k["jit_step_us"])
        goals[f"{model}_jit_as_fast_as_jax"] = bool(j) and \
            k["jit_step_us"] <= j
        goals[f"{model}_jit_host_at_most_5us"] = k["jit_host_us"] <= 5
        goals[f"{model}_no_compile_after_first_steps"] = \
            k["jit_compiles"] == 0 and k["plain_compiles"] <= 2
    result["goals"] = goals
    print(json.dumps(result))


if __name__ == "__main__":
    main()
