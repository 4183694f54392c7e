#!/usr/bin/env python3
"""The host's time per run of a CUDA program with and without CUDA graphs,
against the number of kernel launches and cuBLAS products in it: what sets
kGraphMinCalls (lib/Compiler/Device/CudaGraphs.h).

Each program is a chain of N layers, x <- tanh(x) @ w: N tanh kernels and
N products, 2N calls. kiln-run keeps its data on the device and reports
host_us, the median host time of one run (queued, not waited for), and the
graph launches per run, with KILN_CUDA_GRAPHS=0 (direct launches) and =1
(a graph replay). On the stand-in driver (no GPU) the driver calls are
nearly free, so host_us is kiln's own share of a run plus the stand-in's
bookkeeping (FAKE_CUDA_TIMING=1: a graph launch only counts, and the
stand-in cuBLAS computes nothing, as a real device's work is not the
host's); the driver's own cost on a real GPU is added per call by
--driver-launch-us (cuLaunchKernel, a cuBLAS product's launches) and
--graph-launch-us (cuGraphLaunch), both stated in the output.

Usage:
  python3 bench/gpu/graph_overhead.py [--kiln-run PATH] [--stand-in DIR]
                                      [--layers 1,2,4,...] [--out FILE]
  Without --stand-in it runs on the GPU the machine has.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))


def program(layers, size=8):
    """`layers` x <- tanh(x) @ w, on size x size matrices."""
    t = f"tensor<{size}x{size}xf32>"
    lines = [f"func.func @main(%x0: {t}, %w: {t}) -> {t} {{"]
    for i in range(layers):
        lines.append(f"  %t{i} = kiln.tanh %x{i} : {t}")
        lines.append(f"  %x{i + 1} = kiln.matmul %t{i}, %w : {t}, {t} -> {t}")
    lines.append(f"  return %x{layers} : {t}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def run(tool, path, graphs, env, repeat):
    env = dict(env, KILN_CUDA_GRAPHS=graphs)
    done = subprocess.run(
        [tool, path, "--backend", "cuda", "--random-inputs", "1",
         "--repeat", str(repeat), "--report", "--no-cache"],
        env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"kiln-run failed: {done.stderr.strip()}")
    report = json.loads(done.stdout.strip().splitlines()[-1])
    return report["host_us"], report["graph_launches_per_run"], \
        report["kernel_launches"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kiln-run", default=None)
    parser.add_argument("--stand-in", default=None,
                        help="the build's unittests/Runtime (no GPU)")
    parser.add_argument("--layers", default="1,2,4,8,16,32,64")
    parser.add_argument("--repeat", type=int, default=300)
    parser.add_argument("--driver-launch-us", type=float, default=2.5,
                        help="a real driver's host cost per launch")
    parser.add_argument("--graph-launch-us", type=float, default=2.5,
                        help="a real driver's host cost per graph launch")
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    tool = args.kiln_run or os.path.join(ROOT, "build", "bin", "kiln-run")
    env = dict(os.environ)
    if args.stand_in:
        env["KILN_RT_LIBCUDA"] = os.path.join(args.stand_in,
                                              "libkiln_fake_cuda_driver.so")
        env["KILN_RT_LIBCUBLAS"] = os.path.join(args.stand_in,
                                                "libkiln_fake_cublas.so")
        env["FAKE_CUDA_TIMING"] = "1"  # no emulated device work
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for layers in [int(n) for n in args.layers.split(",")]:
            path = os.path.join(tmp, f"chain{layers}.mlir")
            with open(path, "w") as f:
                f.write(program(layers))
            direct_us, direct_graphs, kernels = run(tool, path, "0", env,
                                                    args.repeat)
            graph_us, graph_launches, _ = run(tool, path, "1", env,
                                              args.repeat)
            calls = kernels + layers  # the kernels and the products
            rows.append({
                "layers": layers, "calls": calls,
                "direct_host_us": direct_us,
                "graph_host_us": graph_us,
                "graph_launches_per_run": graph_launches,
                "direct_graph_launches_per_run": direct_graphs,
                # With a real driver's cost per call added.
                "direct_us_with_driver": direct_us +
                calls * args.driver_launch_us,
                "graph_us_with_driver": graph_us + args.graph_launch_us,
            })
    result = {"bench": "gpu_graph_overhead",
              "device": "stand-in" if args.stand_in else "gpu",
              "driver_launch_us": args.driver_launch_us,
              "graph_launch_us": args.graph_launch_us,
              "repeat": args.repeat, "rows": rows}
    line = json.dumps(result)
    print(line)
    if args.out:
        with open(args.out, "w") as f:
            f.write(line + "\n")


if __name__ == "__main__":
    sys.exit(main())
