#!/usr/bin/env python3
"""Data-parallel training on MPI ranks of this machine: the step time, and
the share of it spent waiting on communication, with and without overlap.

For each model (kiln-lstm-train, kiln-gpt-train) and gradient bucket size,
runs `mpirun -np RANKS MODEL --data-parallel --bucket-kb KB` with
KILN_DIST_OVERLAP=1 (each bucket's all_reduce starts when its gradients are
complete and is waited for where the update reads it) and =0 (each waited
for where it starts), and the model alone in one process. Each rank runs
one thread (OMP_NUM_THREADS=1: the ranks share the machine's cores). From
the examples' lines, per step after the first (which compiles):
  step_ms         wall time per step (the throughput's inverse);
  comm_ms         time per step inside the collectives' calls (starting
                  them, letting them progress between steps, waiting for
                  them): the communication that no other work hid;
  comm_share      comm_ms / step_ms;
  collectives, bytes  per step.
The LSTM's single process trains on the whole batch of 32 (the ranks split
it); the GPT block's ranks each train on --batch sequences (weak scaling).
Each configuration runs --repeat times (default 5); the medians are given,
with the spread of step_ms (min, max): two ranks on a two-core machine are
noisy.

--mpi picks the MPI: openmpi (mpirun.openmpi, libmpi.so.40; the default)
or mpich (Hydra's mpirun.mpich, KILN_MPI_LIBRARY=libmpich.so.12).

Usage: python3 bench/distributed/data_parallel.py [--build build]
           [--ranks 2] [--steps 300] [--buckets 25600,16] [--repeat 5]
           [--mpi openmpi|mpich] [--out FILE]
Prints one JSON line per run, and writes them all to FILE if given.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from common import ROOT, write_jsonl  # noqa: E402

THROUGHPUT = re.compile(r"throughput: ([0-9.]+) steps/s")
COLLECTIVES = re.compile(
    r"collectives: ([0-9.]+) per step, ([0-9]+) bytes per step, ([0-9.]+) "
    r"ms per step in them, ([0-9.]+)% of the step")


def run(command, env):
    done = subprocess.run(command, env=env, capture_output=True, text=True,
                          timeout=900)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{done.stdout}\n"
                           f"{done.stderr}")
    return done.stdout


def median(values):
    values = sorted(values)
    n = len(values)
    return values[n // 2] if n % 2 else 0.5 * (values[n // 2 - 1] +
                                              values[n // 2])


def repeated(times, command, env):
    """The median of each figure over `times` runs, and step_ms's range."""
    rows = [parse(run(command, env)) for _ in range(times)]
    out = {key: median([r[key] for r in rows]) for key in rows[0]}
    out["step_ms_range"] = [min(r["step_ms"] for r in rows),
                            max(r["step_ms"] for r in rows)]
    out["runs"] = times
    return out


def parse(output):
    throughput = THROUGHPUT.search(output)
    if not throughput:
        raise RuntimeError("no throughput line in:\n" + output)
    row = {"step_ms": 1e3 / float(throughput.group(1))}
    collectives = COLLECTIVES.search(output)
    if collectives:
        row.update(collectives=float(collectives.group(1)),
                   bytes=int(collectives.group(2)),
                   comm_ms=float(collectives.group(3)),
                   comm_share=float(collectives.group(4)) / 100)
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--ranks", type=int, default=2)
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--buckets", default="25600,16",
                        help="bucket sizes in KB, comma-separated")
    parser.add_argument("--models", default="lstm,gpt")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--out", default=None)
    parser.add_argument("--mpi", choices=("openmpi", "mpich"),
                        default="openmpi")
    args = parser.parse_args()
    env = dict(os.environ, OMP_NUM_THREADS="1",
               OMPI_MCA_rmaps_base_oversubscribe="1",
               OMPI_MCA_btl_vader_single_copy_mechanism="none")
    if args.mpi == "openmpi":
        mpirun = shutil.which("mpirun.openmpi") or shutil.which("mpirun")
        if not mpirun:
            sys.exit("data_parallel.py: no mpirun (install openmpi-bin)")
        launcher = [mpirun, "-np", str(args.ranks), "--oversubscribe"]
        if os.geteuid() == 0:
            launcher.append("--allow-run-as-root")
        setting = "-x"
    else:
        mpirun = shutil.which("mpirun.mpich")
        if not mpirun:
            sys.exit("data_parallel.py: no mpirun.mpich (install mpich)")
        launcher = [mpirun, "-np", str(args.ranks), "-genv",
                    "KILN_MPI_LIBRARY", "libmpich.so.12"]
        setting = "-genv"
    tools = {"lstm": "kiln-lstm-train", "gpt": "kiln-gpt-train"}
    rows = []
    for model in args.models.split(","):
        tool = os.path.join(args.build, "bin", tools[model])
        steps = [str(args.steps)]
        alone = repeated(args.repeat, [tool] + steps, env)
        rows.append(dict(bench="data_parallel", model=tools[model], ranks=1,
                         **alone))
        print(json.dumps(rows[-1]), flush=True)
        for kb in args.buckets.split(","):
            for overlap in ("1", "0"):
                figures = repeated(
                    args.repeat,
                    launcher + ([setting, "KILN_DIST_OVERLAP=" + overlap]
                                if setting == "-x" else
                                [setting, "KILN_DIST_OVERLAP", overlap]) +
                    [tool] +
                    steps + ["--data-parallel", "--bucket-kb", kb],
                    dict(env, KILN_DIST_OVERLAP=overlap))
                row = dict(bench="data_parallel", model=tools[model],
                           ranks=args.ranks, mpi=args.mpi, bucket_kb=int(kb),
                           overlap=overlap == "1", **figures)
                row["speedup_vs_one_process"] = alone["step_ms"] / row["step_ms"]
                rows.append(row)
                print(json.dumps(row), flush=True)
    if args.out:
        write_jsonl(args.out, rows)


if __name__ == "__main__":
    main()
