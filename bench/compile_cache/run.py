#!/usr/bin/env python3
"""Compile less (issue 17): kiln-lstm-train's time to its first step in a
new process, cold (an empty compile cache) and warm (a second process on the
same cache), against JAX's persistent compilation cache on the same model
and SGD step (jax_lstm.py, in the peers' python), measured in the same run.

Each round makes fresh cache directories and runs kiln cold, kiln warm,
JAX cold and JAX warm; the figures are the medians over the rounds. The
first step's time is taken inside each process, compile (or cache load)
included, process start-up excluded.

The aot part: ahead-of-time modules (kiln-compile) run by a program that
links the runtime alone (test/Install/run_module.c, built here with the C
compiler), against kiln-run on the .mlir (JIT-compiled) in the same rounds:
the GPT block of bench/transformer, forward and forward+backward, and the
LSTM cell of test/Integration. Each round alternates the two; the figures
are the medians of the rounds' median run times.

The generic part: the LSTM cell (lstm_cell.py) forward and forward +
backward, compiled for its batch size (static) and for any batch size
(--dynamic: one shape-generic program), run by kiln-run on the same .npy
inputs in the same rounds, at B=256 H=2048 (input 2048) and B=256 H=256.

The batches part: a training loop over 20 batch sizes (batches.py), kiln
(automatic dynamic dims) against jax.jit (a compile per shape), in fresh
processes, alternating: compiles, total time, the last 10 steps' time.

Usage: bench/compile_cache/run.py [--build DIR] [--rounds N]
       [--peers-python PY] [--parts cache,aot,generic,batches]
Prints one JSON line."""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
PEERS = os.path.normpath(os.path.join(ROOT, "..", "shared", "peers"))


def kiln_train(build, cache_dir):
    """kiln-lstm-train 3: first step ms, compile ms, disk hits, contexts."""
    env = dict(os.environ, KILN_CACHE_DIR=cache_dir)
    out = subprocess.run([os.path.join(build, "bin", "kiln-lstm-train"), "3"],
                         env=env, capture_output=True, text=True,
                         check=True).stdout
    first = float(re.search(r"\(([0-9.]+) ms, compile included\)",
                            out).group(1))
    metrics = dict(re.findall(r"(\w+) ([0-9.]+)",
                              out.split("metrics:")[1]))
    return {"first_step_ms": first,
            "compile_ms": float(metrics["compile_ms"]),
            "disk_hits": int(metrics["disk_hits"]),
            "mlir_contexts": int(metrics["mlir_contexts"])}


def jax_train(py, cache_dir):
    out = subprocess.run([py, os.path.join(HERE, "jax_lstm.py"), cache_dir],
                         capture_output=True, text=True)
    if out.returncode != 0:
        return {"error": out.stderr.strip()[-300:]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def build_run_module(build, tmp):
    """test/Install/run_module.c against the build's runtime."""
    exe = os.path.join(tmp, "run_module")
    cc = os.environ.get("CC", "cc")
    subprocess.run([cc, "-O2", "-o", exe,
                    os.path.join(ROOT, "test", "Install", "run_module.c"),
                    "-I" + os.path.join(ROOT, "runtime", "include"),
                    "-L" + os.path.join(build, "lib"), "-lkiln_runtime",
                    "-Wl,-rpath," + os.path.join(build, "lib"), "-lm"],
                   check=True)
    return exe


def aot_programs(tmp):
    """(name, .mlir, entry): what the aot part runs."""
    gpt = os.path.join(tmp, "gpt.mlir")
    with open(gpt, "w") as f:
        subprocess.run([sys.executable,
                        os.path.join(ROOT, "bench", "transformer",
                                     "gpt_block.py"),
                        "8", "128", "256", "4", "--backward"], stdout=f,
                       check=True)
    lstm = os.path.join(ROOT, "test", "Integration", "lstm_cell.mlir")
    return [("gpt_block_fwd", gpt, "gpt_block"),
            ("gpt_block_fwd_bwd", gpt, "gpt_block_bwd"),
            ("lstm_cell_b64_h256", lstm, "lstm_cell")]


def aot_part(build, rounds, repeat):
    """The module's run time (runtime alone) against kiln-run's (JIT)."""
    bin_dir = os.path.join(build, "bin")
    out = {}
    with tempfile.TemporaryDirectory(prefix="kiln-aot-") as tmp:
        run_module = build_run_module(build, tmp)
        for name, mlir, entry in aot_programs(tmp):
            module = os.path.join(tmp, name + ".kiln")
            subprocess.run([os.path.join(bin_dir, "kiln-compile"), mlir,
                            "--entry", entry, "-o", module], check=True)
            data = os.path.join(tmp, name)
            os.makedirs(data, exist_ok=True)
            module_ms, jit_ms = [], []
            for _ in range(rounds):
                got = subprocess.run([run_module, module, data, "--repeat",
                                      str(repeat)], capture_output=True,
                                     text=True, check=True).stdout
                module_ms.append(json.loads(got)["run_ms"])
                got = subprocess.run(
                    [os.path.join(bin_dir, "kiln-run"), mlir, "--entry",
                     entry, "--random-inputs", "1", "--repeat", str(repeat),
                     "--report", "--no-cache"], capture_output=True,
                    text=True, check=True).stdout
                jit_ms.append(json.loads(got.strip().splitlines()[-1])
                              ["run_ms"])
            ratios = sorted(m / j for m, j in zip(module_ms, jit_ms))
            out[name] = {"module_run_ms": median(module_ms),
                         "kiln_run_jit_run_ms": median(jit_ms),
                         "module_over_jit": median(ratios),
                         "module_over_jit_min": ratios[0],
                         "module_over_jit_max": ratios[-1],
                         "module_bytes": os.path.getsize(module)}
    return out


GENERIC_CONFIGS = [(256, 2048, 2048), (256, 256, 256)]


def kiln_run_ms(build, mlir, entry, inputs, repeat):
    """kiln-run's median run time (ms) and its report."""
    args = [os.path.join(build, "bin", "kiln-run"), mlir, "--entry", entry,
            "--repeat", str(repeat), "--report", "--no-cache"]
    for path in inputs:
        args += ["--input", path]
    out = subprocess.run(args, capture_output=True, text=True, check=True)
    report = json.loads(out.stdout.strip().splitlines()[-1])
    return report["run_ms"], report


def generic_part(build, rounds, repeat):
    """Static against shape-generic programs of the LSTM cell."""
    import numpy as np
    out = {}
    with tempfile.TemporaryDirectory(prefix="kiln-generic-") as tmp:
        for batch, inp, hidden in GENERIC_CONFIGS:
            name = f"b{batch}_i{inp}_h{hidden}"
            programs = {}
            for kind, flags in (("static", []), ("generic", ["--dynamic"])):
                path = os.path.join(tmp, f"{name}_{kind}.mlir")
                with open(path, "w") as f:
                    subprocess.run([sys.executable,
                                    os.path.join(HERE, "lstm_cell.py"),
                                    str(batch), str(inp), str(hidden)] +
                                   flags, stdout=f, check=True)
                programs[kind] = path
            rng = np.random.default_rng(0)
            shapes = [("x", (batch, inp)), ("h", (batch, hidden)),
                      ("c", (batch, hidden)), ("wx", (4 * hidden, inp)),
                      ("wh", (4 * hidden, hidden)), ("b", (4 * hidden,)),
                      ("cth", (batch, hidden)), ("ctc", (batch, hidden))]
            paths = []
            for key, shape in shapes:
                path = os.path.join(tmp, f"{name}_{key}.npy")
                np.save(path, rng.uniform(-1, 1, shape).astype(np.float32))
                paths.append(path)
            for entry, inputs in (("lstm_cell", paths[:6]),
                                  ("lstm_cell_grad", paths)):
                times = {"static": [], "generic": []}
                reports = {}
                for _ in range(rounds):
                    for kind in ("static", "generic"):
                        ms, reports[kind] = kiln_run_ms(
                            build, programs[kind], entry, inputs, repeat)
                        times[kind].append(ms)
                ratios = sorted(g / s for g, s in
                                zip(times["generic"], times["static"]))
                out[f"{name}_{entry}"] = {
                    "static_run_ms": median(times["static"]),
                    "generic_run_ms": median(times["generic"]),
                    "generic_over_static": median(ratios),
                    "generic_over_static_min": ratios[0],
                    "generic_over_static_max": ratios[-1],
                    "static_kernel_launches":
                        reports["static"]["kernel_launches"],
                    "generic_kernel_launches":
                        reports["generic"]["kernel_launches"]}
    return out


def batches_part(build, py, rounds):
    """20 batch sizes: kiln's 2 compiles against jax.jit's 20."""
    runs = {"kiln": [], "jax": []}
    for _ in range(rounds):
        env = dict(os.environ, PYTHONPATH=os.path.join(build, "python"),
                   KILN_CACHE="0")
        out = subprocess.run([sys.executable, os.path.join(HERE, "batches.py"),
                              "kiln"], env=env, capture_output=True, text=True,
                             check=True).stdout
        runs["kiln"].append(json.loads(out.strip().splitlines()[-1]))
        out = subprocess.run([py, os.path.join(HERE, "batches.py"), "jax"],
                             capture_output=True, text=True)
        if out.returncode == 0:
            runs["jax"].append(json.loads(out.stdout.strip().splitlines()[-1]))
    result = {}
    for name, rs in runs.items():
        if rs:
            result[name] = {key: median([r[key] for r in rs])
                            for key in ("total_ms", "compiles", "last10_ms",
                                        "final_loss")}
    if "kiln" in result and "jax" in result:
        result["speedup_total_vs_jax"] = (result["jax"]["total_ms"] /
                                          result["kiln"]["total_ms"])
    return result


def median(values):
    values = sorted(values)
    return values[len(values) // 2] if values else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--peers-python", default=None)
    ap.add_argument("--parts", default="cache,aot,generic,batches")
    ap.add_argument("--repeat", type=int, default=30,
                    help="runs per measurement in the aot part")
    args = ap.parse_args()
    parts = args.parts.split(",")
    out = {"bench": "compile_cache", "rounds": args.rounds}
    if "cache" in parts:
        out.update(cache_part(args))
    if "aot" in parts:
        out["aot"] = aot_part(args.build, args.rounds, args.repeat)
    if "batches" in parts:
        py = args.peers_python or subprocess.run(
            ["bash", os.path.join(PEERS, "setup.sh")], capture_output=True,
            text=True).stdout.strip().splitlines()[-1]
        out["batches"] = batches_part(args.build, py, args.rounds)
    if "generic" in parts:
        out["generic"] = generic_part(args.build, args.rounds,
                                      max(3, args.repeat // 5))
    print(json.dumps(out))


def cache_part(args):
    py = args.peers_python
    if py is None:
        py = subprocess.run(["bash", os.path.join(PEERS, "setup.sh")],
                            capture_output=True,
                            text=True).stdout.strip().splitlines()[-1]
    rounds = []
    for _ in range(args.rounds):
        with tempfile.TemporaryDirectory(prefix="kiln-cc-") as tmp:
            kiln_dir = os.path.join(tmp, "kiln")
            jax_dir = os.path.join(tmp, "jax")
            rounds.append({"kiln_cold": kiln_train(args.build, kiln_dir),
                           "kiln_warm": kiln_train(args.build, kiln_dir),
                           "jax_cold": jax_train(py, jax_dir),
                           "jax_warm": jax_train(py, jax_dir)})
    out = {"model": "kiln-lstm-train"}
    for run in ("kiln_cold", "kiln_warm", "jax_cold", "jax_warm"):
        for key in ("first_step_ms", "compile_ms"):
            values = [r[run][key] for r in rounds if key in r[run]]
            if values:
                out[f"{run}_{key}"] = median(values)
        errors = [r[run]["error"] for r in rounds if "error" in r[run]]
        if errors:
            out[f"{run}_error"] = errors[0]
    out["kiln_warm_disk_hits"] = median(
        [r["kiln_warm"]["disk_hits"] for r in rounds])
    out["kiln_warm_mlir_contexts"] = max(
        r["kiln_warm"]["mlir_contexts"] for r in rounds)
    # Issue 17's goal: the warm first step at most 5% of the cold compile.
    out["kiln_warm_first_step_over_cold_compile"] = (
        out["kiln_warm_first_step_ms"] / out["kiln_cold_compile_ms"])
    out["kiln_warm_compile_over_cold_compile"] = (
        out["kiln_warm_compile_ms"] / out["kiln_cold_compile_ms"])
    if "jax_warm_first_step_ms" in out:
        out["jax_warm_first_step_over_cold"] = (
            out["jax_warm_first_step_ms"] / out["jax_cold_first_step_ms"])
        out["speedup_warm_first_step_vs_jax"] = (
            out["jax_warm_first_step_ms"] / out["kiln_warm_first_step_ms"])
        out["speedup_cold_first_step_vs_jax"] = (
            out["jax_cold_first_step_ms"] / out["kiln_cold_first_step_ms"])
    return out


if __name__ == "__main__":
    main()
