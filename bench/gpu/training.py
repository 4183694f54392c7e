#!/usr/bin/env python3
"""Lazy training steps on a GPU: kiln (KILN_DEVICE=cuda) against PyTorch
eager CUDA and torch.compile (modes default and reduce-overhead, the
latter with CUDA graphs), in one run, on the same device.

Workloads (--model lstm, gpt, or all):
  lstm  kiln-lstm-train's LSTM language model (vocab 16, batch 32, 8
        positions, embedding 16, hidden 64; forward, gradients of every
        weight, SGD with learning rate 1), on the same synthetic language.
        PyTorch runs the same model, written the same way (one-hot inputs
        through matmuls, the same gates, a shifted log-softmax), with
        backward() and torch.optim.SGD.
  gpt   kiln-gpt-train's pre-LayerNorm GPT block (bench/transformer's:
        causal attention, tanh-GELU MLP; B=4, T=32, C=64, 4 heads by
        default, --gpt-args to change) learning a fixed teacher block by
        mean squared error, SGD on all 12 parameters; PyTorch the same
        block and loss, with backward() and torch.optim.SGD. The inputs are
        4 batches, on the device before the timed steps (both sides).

Per step, in the steady state (after the first steps):
  wall_ms        the loop's wall time over its steps (the loss read every
                 50 steps, as kiln-lstm-train does: the host may run ahead);
  gpu_ms         the device time of the step's kernels (kiln: its metrics'
                 kernel_ms under KILN_KERNEL_TIMING=1; PyTorch: the CUDA
                 kernels' time in torch.profiler);
  host_overhead_ms  wall_ms - gpu_ms;
  launches       kernels and BLAS calls (kiln's metrics; the profiler's
                 kernel count);
  graph_launches CUDA graph launches (kiln's metrics: 1 where the step is
                 replayed as one graph), and graph_captures over the run;
  h2d_bytes, d2h_bytes  bytes over PCIe (kiln's metrics, from two run
                 lengths' difference; PyTorch: the batch the loop copies,
                 and the losses it reads).

Usage (on the GPU machine, with the python that has torch 2.x):
  python3 bench/gpu/training.py [--kiln-lstm-train PATH] [--steps N]
                                [--out FILE]
  python3 bench/gpu/training.py --check-only [--no-torch] [--stand-in DIR]
      no GPU: kiln on the build's stand-in driver (kernels do not run, so
      only the harness, bytes and launches mean anything), PyTorch on the
      CPU for a few steps: checks that every figure is produced.
Prints one JSON line per model; on a GPU, writes them to
bench/results/gpu-training-<device>.json.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))

VOCAB, BATCH, POSITIONS, EMBEDDING, HIDDEN = 16, 32, 8, 16, 64
LEARNING_RATE = 1.0
READ_EVERY = 50


def find_tool(name, given):
    if given:
        return given
    for path in (os.path.join(ROOT, "bin", name),
                 os.path.join(ROOT, "build", "bin", name)):
        if os.path.exists(path):
            return path
    return name


def run_kiln(tool, steps, env, extra=()):
    """TOOL STEPS (kiln-lstm-train, kiln-gpt-train): its throughput and
    metrics lines, parsed. On the stand-in driver kernels do not run, so
    the loss cannot fall: that failure is expected there."""
    done = subprocess.run([tool, str(steps)] + list(extra), env=env,
                          capture_output=True, text=True)
    if done.returncode != 0 and not (
            env.get("KILN_RT_LIBCUDA", "").endswith("fake_cuda_driver.so")
            and "did not fall" in done.stderr):
        raise RuntimeError(tool + " failed: " + done.stderr.strip())
    figures = {}
    for key, value in re.findall(r"([a-z_0-9]+) (-?[0-9.]+)",
                                 done.stdout.split("metrics:")[-1]):
        figures[key] = float(value)
    rate = re.search(r"throughput: ([0-9.]+) steps/s", done.stdout)
    figures["steps_per_s"] = float(rate.group(1)) if rate else 0.0
    losses = re.findall(r"loss ([0-9.]+)", done.stdout)
    figures["last_loss"] = float(losses[-1]) if losses else float("nan")
    return figures


def bench_kiln(tool, steps, env, extra=()):
    """Per-step figures of a kiln training example on the cuda device."""
    env = dict(env, KILN_DEVICE="cuda")
    short, long = max(2, steps // 4), steps
    a = run_kiln(tool, short, env, extra)
    b = run_kiln(tool, long, env, extra)
    timed = run_kiln(tool, long, dict(env, KILN_KERNEL_TIMING="1"), extra)
    per = long - short
    wall_ms = 1e3 / b["steps_per_s"] if b["steps_per_s"] else float("nan")
    gpu_ms = timed["kernel_ms"] / long
    return {
        "wall_ms": wall_ms,
        "gpu_ms": gpu_ms,
        "host_overhead_ms": wall_ms - gpu_ms,
        "launches": timed["kernel_launches"] / long,
        "graph_launches": (b["graph_launches"] - a["graph_launches"]) / per,
        "graph_captures": b["graph_captures"],
        "h2d_bytes": (b["h2d_bytes"] - a["h2d_bytes"]) / per,
        "d2h_bytes": (b["d2h_bytes"] - a["d2h_bytes"]) / per,
        "first_step_h2d_bytes": a["h2d_bytes"] -
        (short - 1) * (b["h2d_bytes"] - a["h2d_bytes"]) / per,
        "compiles": b["compiles"],
        "loss": b["last_loss"],
    }


def make_batch(rng, np):
    """kiln-lstm-train's language: per position, the tokens one-hot."""
    tokens = np.zeros((POSITIONS + 1, BATCH, VOCAB), np.float32)
    for b in range(BATCH):
        start, stride = rng.integers(0, VOCAB), rng.integers(1, 4)
        for t in range(POSITIONS + 1):
            value = start if t == 0 else stride if t == 1 else \
                (start + (t - 1) * stride) % VOCAB
            tokens[t, b, value] = 1.0
    return tokens


def torch_model(torch, device):
    gen = torch.Generator().manual_seed(7)

    def uniform(shape, scale):
        w = (torch.rand(shape, generator=gen) * 2 - 1) * scale
        return w.to(device).requires_grad_()

    def zeros(shape):
        return torch.zeros(shape, device=device, requires_grad=True)

    params = [uniform((VOCAB, EMBEDDING), 0.5),
              uniform((4 * HIDDEN, EMBEDDING), 0.2),
              uniform((4 * HIDDEN, HIDDEN), 0.1), zeros((4 * HIDDEN,)),
              uniform((HIDDEN, VOCAB), 0.2), zeros((VOCAB,))]

    def loss_fn(tokens, embed, wx, wh, bias, wout, bout):
        h = torch.zeros(BATCH, HIDDEN, device=tokens.device)
        c = torch.zeros(BATCH, HIDDEN, device=tokens.device)
        total = 0
        for t in range(POSITIONS):
            x = tokens[t] @ embed
            gates = x @ wx.t() + h @ wh.t() + bias
            i, f, g, o = gates.chunk(4, 1)
            c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
            h = torch.sigmoid(o) * torch.tanh(c)
            logits = h @ wout + bout
            shifted = logits - logits.amax(1, keepdim=True)
            log_sum_exp = shifted.exp().sum(1).log()
            total = total + (log_sum_exp - (shifted * tokens[t + 1]).sum(1)).sum()
        return total / (BATCH * POSITIONS)

    return params, loss_fn


def gpt_config(gpt_args):
    """B, T, C, H and the learning rate from kiln-gpt-train's flags."""
    cfg = {"--batch": 4, "--seq": 32, "--width": 64, "--heads": 4,
           "--lr": 0.05}
    for flag, value in zip(gpt_args[::2], gpt_args[1::2]):
        cfg[flag] = float(value) if flag == "--lr" else int(value)
    return cfg


def torch_gpt(torch, device, cfg):
    """The GPT block, teacher and student, and the MSE loss on inputs [B*T,
    C] (kiln-gpt-train's, with PyTorch's own random init)."""
    b, t, c, h = (cfg["--batch"], cfg["--seq"], cfg["--width"],
                  cfg["--heads"])
    d = c // h
    gen = torch.Generator().manual_seed(11)

    def init():
        s = 1.0 / c ** 0.5
        shapes = [(c,), (c,), (c, 3 * c), (3 * c,), (c, c), (c,), (c,), (c,),
                  (c, 4 * c), (4 * c,), (4 * c, c), (c,)]
        params = []
        for i, shape in enumerate(shapes):
            w = torch.randn(shape, generator=gen) * (
                0.5 * s if i == 10 else s if len(shape) == 2 else 0.0)
            if i in (0, 6):
                w = w + 1.0
            params.append(w.to(device).requires_grad_())
        return params

    mask = torch.triu(torch.full((t, t), -1e9), 1).to(device)

    def layer_norm(x, g, bias):
        mu = x.mean(1, keepdim=True)
        centered = x - mu
        var = (centered * centered).mean(1, keepdim=True)
        return centered * torch.rsqrt(var + 1e-5) * g + bias

    def block(x, p):
        qkv = layer_norm(x, p[0], p[1]) @ p[2] + p[3]

        def heads(i):
            part = qkv[:, i * c:(i + 1) * c]
            return part.reshape(b, t, h, d).permute(0, 2, 1, 3) \
                .reshape(b * h, t, d)
        q, k, v = heads(0), heads(1), heads(2)
        scores = q @ k.transpose(1, 2) * (1.0 / d ** 0.5) + mask
        attended = torch.softmax(scores, 2) @ v
        joined = attended.reshape(b, h, t, d).permute(0, 2, 1, 3) \
            .reshape(b * t, c)
        x1 = x + joined @ p[4] + p[5]
        hidden = torch.nn.functional.gelu(
            layer_norm(x1, p[6], p[7]) @ p[8] + p[9], approximate="tanh")
        return x1 + hidden @ p[10] + p[11]

    teacher, student = init(), init()
    inputs = [torch.randn((b * t, c), generator=gen).to(device)
              for _ in range(4)]
    with torch.no_grad():
        targets = [block(x, teacher) for x in inputs]

    def loss_fn(x, target, *p):
        diff = block(x, p) - target
        return (diff * diff).mean()

    return student, loss_fn, inputs, targets


def bench_torch(torch, np, device, mode, steps, model, gpt_args=()):
    """Per-step figures of the PyTorch step: mode eager, default or
    reduce-overhead (torch.compile)."""
    cuda = device.type == "cuda"
    if model == "gpt":
        cfg = gpt_config(gpt_args)
        params, loss_fn, inputs, targets = torch_gpt(torch, device, cfg)
        learning_rate = cfg["--lr"]

        def arguments(s):
            return (inputs[s % 4], targets[s % 4]), 0
    else:
        params, loss_fn = torch_model(torch, device)
        learning_rate = LEARNING_RATE
        rng = np.random.default_rng(7)
        batches = [make_batch(rng, np) for _ in range(steps)]

        def arguments(s):
            tokens = torch.from_numpy(batches[s % len(batches)]).to(device)
            return (tokens,), tokens.numel() * 4
    if mode != "eager":
        loss_fn = torch.compile(loss_fn, mode=mode)
    optimizer = torch.optim.SGD(params, lr=learning_rate)
    sync = torch.cuda.synchronize if cuda else (lambda: None)
    state = {"h2d": 0, "d2h": 0, "loss": float("nan")}

    def step(s):
        args, uploaded = arguments(s)
        state["h2d"] += uploaded
        loss = loss_fn(*args, *params)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        if s % READ_EVERY == 0 or s + 1 == steps:
            state["loss"] = loss.item()
            state["d2h"] += 4

    warmup = min(3, steps)
    for s in range(warmup):
        step(s)
    sync()
    state["h2d"] = state["d2h"] = 0
    start = time.perf_counter()
    for s in range(warmup, steps):
        step(s)
    sync()
    measured = steps - warmup
    wall_ms = (time.perf_counter() - start) * 1e3 / measured
    gpu_ms, launches = float("nan"), float("nan")
    if cuda:
        from torch.profiler import ProfilerActivity, profile
        profiled = min(20, measured)
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for s in range(profiled):
                step(s)
            sync()
        kernels = [e for e in prof.events()
                   if e.device_type.name == "CUDA"]
        gpu_ms = sum(e.device_time for e in kernels) / 1e3 / profiled
        launches = len(kernels) / profiled
    return {"wall_ms": wall_ms, "gpu_ms": gpu_ms,
            "host_overhead_ms": wall_ms - gpu_ms, "launches": launches,
            "h2d_bytes": state["h2d"] / measured,
            "d2h_bytes": state["d2h"] / measured, "loss": state["loss"]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kiln-lstm-train", default="")
    parser.add_argument("--kiln-gpt-train", default="")
    parser.add_argument("--model", choices=["lstm", "gpt", "all"],
                        default="all")
    parser.add_argument("--gpt-args", default="",
                        help="kiln-gpt-train's flags, e.g. '--batch 8 "
                        "--seq 128 --width 256 --heads 4'")
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--out", default="")
    parser.add_argument("--check-only", action="store_true")
    parser.add_argument("--no-torch", action="store_true")
    parser.add_argument("--stand-in", default=os.path.join(
        ROOT, "build", "unittests", "Runtime"),
        help="with --check-only: the directory of the stand-in driver and "
        "cuBLAS")
    args = parser.parse_args()
    env = dict(os.environ)
    steps = args.steps
    if args.check_only:
        # The stand-in driver of the build tree: the harness, not speeds.
        runtime = args.stand_in
        env.update(
            KILN_RT_LIBCUDA=os.path.join(runtime,
                                         "libkiln_fake_cuda_driver.so"),
            KILN_RT_LIBCUBLAS=os.path.join(runtime, "libkiln_fake_cublas.so"))
        steps = min(steps, 8)
    gpt_args = args.gpt_args.split()
    models = ["lstm", "gpt"] if args.model == "all" else [args.model]
    lines = []
    for model in models:
        name = "kiln-%s-train" % model
        tool = find_tool(name, getattr(args, "kiln_%s_train" % model))
        result = {"bench": "gpu_training", "model": name}
        if model == "gpt":
            result["gpt_args"] = args.gpt_args
        if args.check_only:
            result["check_only"] = True
        result["kiln"] = bench_kiln(tool, steps, env,
                                    gpt_args if model == "gpt" else ())
        if not args.no_torch:
            import numpy as np
            import torch
            cuda = torch.cuda.is_available()
            device = torch.device("cuda" if cuda else "cpu")
            result["device"] = torch.cuda.get_device_name() if cuda else "cpu"
            modes = ["eager", "default", "reduce-overhead"] if cuda \
                else ["eager"]
            for mode in modes:
                result["torch_" + mode.replace("-", "_")] = bench_torch(
                    torch, np, device, mode, steps, model, gpt_args)
            for mode in modes if not args.check_only else []:
                key = "torch_" + mode.replace("-", "_")
                result["kiln_speedup_vs_" + key] = (
                    result[key]["wall_ms"] / result["kiln"]["wall_ms"])
        lines.append(json.dumps(result))
        print(lines[-1])
    device = json.loads(lines[-1]).get("device", "cpu")
    if args.out or (not args.check_only and device != "cpu"):
        name = re.sub(r"[^A-Za-z0-9]+", "-", device)
        out = args.out or os.path.join(
            ROOT, "bench", "results", "gpu-training-%s.json" % name.strip("-"))
        with open(out, "w") as f:
            f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
