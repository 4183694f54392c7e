#!/usr/bin/env python3
"""kiln on a GPU against PyTorch eager and torch.compile (Inductor), in one
run, on the same device, with the same inputs (results compared).

Workloads: the LSTM cell's pointwise part, forward and forward+backward, at
B=256, H=2048 and B=1024, H=8192; the 6-layer tanh MLP's second derivative
w.r.t. its input (N=2000, W=256). kiln's time is the device time of its
steps (kiln-run --backend cuda: CUDA events), the peers' the same (CUDA
events around the call; and the peers' kernels alone, replayed from a CUDA
graph, without the host's launch gaps). Reported besides: the device's copy bandwidth
(torch clone of 1 GiB) and the fraction of it kiln's fused kernels reach
(the bytes they must move over their time), and compile times (kiln-run's
compile_ms; torch.compile's first call).

Usage (on the GPU machine, with the python that has torch 2.x):
  python3 bench/gpu/run.py [--kiln-run PATH] [--repeat N] [--out FILE]
  python3 bench/gpu/run.py --check-only      # no GPU: programs compile to PTX
Prints one JSON line and writes it to bench/results/gpu-<device>.json.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))


def load_bench(name):
    """bench/NAME/run.py as a module (its program generators)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location(
        f"bench_{name}", os.path.join(ROOT, "bench", name, "run.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


lstm_source = load_bench("lstm_cell").source
mlp_source = load_bench("hessian").mlp_source

SIZES = [(256, 2048), (1024, 8192)]
N, W = 2000, 256


def default_kiln_run():
    for path in (os.path.join(ROOT, "bin", "kiln-run"),
                 os.path.join(ROOT, "build", "bin", "kiln-run")):
        if os.path.exists(path):
            return path
    return "kiln-run"


def kiln(kiln_run, source, inputs, outdir, repeat):
    cmd = [kiln_run, source, "--backend", "cuda", "--repeat", str(repeat),
           "--report", "--output-dir", outdir]
    for path in inputs:
        cmd += ["--input", path]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(out.stderr.strip())
    return json.loads(out.stdout.strip().splitlines()[-1])


def cuda_time(torch, fn, repeat):
    """Median device ms of fn() over `repeat` calls, after a warm-up."""
    fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(repeat):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    times.sort()
    return times[len(times) // 2]


def graph_time(torch, fn, repeat):
    """Median device ms of one replay of fn() captured in a CUDA graph: the
    peer's kernels alone, without the host's launch gaps that cuda_time
    counts (kiln's steps are timed between events on its stream likewise).
    None where fn cannot be captured."""
    try:
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            for _ in range(3):
                fn()
        torch.cuda.current_stream().wait_stream(stream)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            fn()
        return cuda_time(torch, graph.replay, repeat)
    except Exception as error:  # capture is not possible for every call
        print(f"graph capture failed: {error}", file=sys.stderr)
        return None


def rounded(ms):
    return None if ms is None else round(ms, 4)


def lstm_torch(torch):
    def cell(gates, c):
        i, f, g, o = gates.chunk(4, 1)
        c2 = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
        return torch.sigmoid(o) * torch.tanh(c2), c2

    def fwd_bwd(gates, c, dh, dc):
        gates = gates.detach().requires_grad_()
        c = c.detach().requires_grad_()
        h2, c2 = cell(gates, c)
        dg, dcin = torch.autograd.grad((h2, c2), (gates, c), (dh, dc))
        return h2, c2, dg, dcin
    return cell, fwd_bwd


def check_only(kiln_opt):
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        programs = []
        for b, h in SIZES:
            fwd, fwd_bwd = lstm_source(b, h)
            programs += [(f"lstm_fwd_{b}x{h}", fwd), (f"lstm_fwd_bwd_{b}x{h}", fwd_bwd)]
        programs.append(("hessian", mlp_source(N, W, "tanh", False)))
        for name, text in programs:
            path = os.path.join(tmp, name + ".mlir")
            open(path, "w").write(text)
            out = subprocess.run([kiln_opt, path, "-kiln-gpu-pipeline"],
                                 capture_output=True, text=True)
            entries = len(re.findall(r"\.entry ", out.stdout))
            print(json.dumps({"program": name, "ok": out.returncode == 0,
                              "ptx_entries": entries,
                              "error": out.stderr.strip()[-300:]}))
            ok &= out.returncode == 0 and entries > 0
    sys.exit(0 if ok else 1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kiln-run", default=default_kiln_run())
    ap.add_argument("--repeat", type=int, default=50)
    ap.add_argument("--out", default=None)
    ap.add_argument("--check-only", action="store_true")
    args = ap.parse_args()
    if args.check_only:
        return check_only(os.path.join(os.path.dirname(args.kiln_run), "kiln-opt"))

    import numpy as np
    import torch
    dev = torch.device("cuda")
    name = torch.cuda.get_device_name()
    result = {"bench": "gpu", "device": name, "torch": torch.__version__}
    # Copy bandwidth: read + write of 1 GiB.
    big = torch.empty(1 << 28, dtype=torch.float32, device=dev)
    ms = cuda_time(torch, lambda: big.clone(), 20)
    copy_gbs = 2 * big.numel() * 4 / (ms * 1e-3) / 1e9
    result["copy_gbs"] = round(copy_gbs, 1)
    del big

    cell, fwd_bwd = lstm_torch(torch)
    compiled_cell = torch.compile(cell)
    compiled_fwd_bwd = torch.compile(fwd_bwd)
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        for b, h in SIZES:
            fwd_src, fwd_bwd_src = lstm_source(b, h)
            arrays = {"gates": rng.uniform(-1, 1, (b, 4 * h)), "c": rng.uniform(-1, 1, (b, h)),
                      "dh": rng.uniform(-1, 1, (b, h)), "dc": rng.uniform(-1, 1, (b, h))}
            paths = {}
            for k, v in arrays.items():
                paths[k] = os.path.join(tmp, f"{k}.npy")
                np.save(paths[k], v.astype(np.float32))
            t = {k: torch.tensor(v, dtype=torch.float32, device=dev) for k, v in arrays.items()}
            for label, src, names, fn, cfn, bytes_moved in (
                    ("fwd", fwd_src, ["gates", "c"], cell, compiled_cell, 7 * b * h * 4),
                    ("fwd_bwd", fwd_bwd_src, ["gates", "c", "dh", "dc"], fwd_bwd,
                     compiled_fwd_bwd, 14 * b * h * 4)):
                key = f"lstm_{label}_{b}x{h}"
                path = os.path.join(tmp, key + ".mlir")
                open(path, "w").write(src)
                outdir = os.path.join(tmp, key)
                rep = kiln(args.kiln_run, path, [paths[n] for n in names], outdir, args.repeat)
                inputs = [t[n] for n in names]
                want = fn(*inputs)
                start = time.perf_counter()
                cfn(*inputs)
                torch.cuda.synchronize()
                compile_s = time.perf_counter() - start
                got = [np.load(os.path.join(outdir, f"out{i}.npy")) for i in range(len(want))]
                max_err = max(float(np.abs(g - w.detach().cpu().numpy()).max())
                              for g, w in zip(got, want))
                kiln_ms = rep["run_ms"]
                eager_ms = cuda_time(torch, lambda: fn(*inputs), args.repeat)
                inductor_ms = cuda_time(torch, lambda: cfn(*inputs), args.repeat)
                eager_graph_ms = graph_time(torch, lambda: fn(*inputs), args.repeat)
                inductor_graph_ms = graph_time(torch, lambda: cfn(*inputs), args.repeat)
                result[key] = {
                    "kiln_ms": kiln_ms, "kiln_compile_ms": rep["compile_ms"],
                    "kiln_kernels": rep["unique_kernels"], "kiln_launches": rep["kernel_launches"],
                    "torch_eager_ms": round(eager_ms, 4), "torch_compile_ms": round(inductor_ms, 4),
                    "torch_eager_graph_ms": rounded(eager_graph_ms),
                    "torch_compile_graph_ms": rounded(inductor_graph_ms),
                    "torch_compile_first_call_s": round(compile_s, 2),
                    "max_abs_diff_vs_torch": max_err,
                    "kiln_fraction_of_copy_bandwidth": round(
                        bytes_moved / (kiln_ms * 1e-3) / 1e9 / copy_gbs, 3),
                    "kiln_vs_torch_compile": round(inductor_ms / kiln_ms, 2),
                    "kiln_vs_torch_compile_graph": None if inductor_graph_ms is None
                    else round(inductor_graph_ms / kiln_ms, 2),
                    "compile_speedup_vs_torch_compile": round(
                        compile_s * 1e3 / rep["compile_ms"], 1),
                }

        # The MLP Hessian (second derivative w.r.t. x), eager peer only:
        # torch.compile does not trace double backward.
        src = os.path.join(tmp, "hessian.mlir")
        open(src, "w").write(mlp_source(N, W, "tanh", False))
        out = subprocess.run([args.kiln_run, src, "--backend", "cuda", "--random-inputs", "1",
                              "--repeat", str(args.repeat), "--report"],
                             capture_output=True, text=True)
        if out.returncode == 0:
            rep = json.loads(out.stdout.strip().splitlines()[-1])
            result["hessian_kiln_ms"] = rep["run_ms"]
            result["hessian_kiln_compile_ms"] = rep["compile_ms"]
        else:
            result["hessian_kiln_error"] = out.stderr.strip()[-300:]
        torch.manual_seed(0)
        layers = [torch.nn.Linear(16, W)] + [torch.nn.Linear(W, W) for _ in range(5)] + \
            [torch.nn.Linear(W, 1)]
        layers = [l.to(dev) for l in layers]
        x = torch.randn(N, 16, device=dev, requires_grad=True)

        def hessian():
            y = x
            for l in layers[:-1]:
                y = torch.tanh(l(y))
            y = layers[-1](y)
            g, = torch.autograd.grad(y.sum(), x, create_graph=True)
            g2, = torch.autograd.grad(g.sum(), x)
            return g2
        result["hessian_torch_eager_ms"] = round(cuda_time(torch, hessian, args.repeat), 4)
        result["hessian_torch_eager_graph_ms"] = rounded(graph_time(torch, hessian, args.repeat))

    line = json.dumps(result)
    print(line)
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    out = args.out or os.path.join(ROOT, "bench", "results", f"gpu-{slug}.json")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    open(out, "w").write(line + "\n")


if __name__ == "__main__":
    main()
