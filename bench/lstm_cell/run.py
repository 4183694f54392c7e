#!/usr/bin/env python3
"""The fuser seed's LSTM cell, pointwise part, on the CPU: kiln vs peers.

Forward: i, f, g, o = chunk(gates, 4, dim=1); c' = sigmoid(f) c +
sigmoid(i) tanh(g); h' = sigmoid(o) tanh(c'). Forward+backward also returns
the gradients of (h', c') w.r.t. (gates, c) for upstream gradients (dh, dc),
derived by -kiln-autodiff; its gates gradient is the concat exit of the
backward group. kiln's figures are kiln-run's median kernel time; the peers
(../shared/peers/lstm_cell_peers.py: numpy, PyTorch eager, JAX/XLA jit) run
with the python ../shared/peers/setup.sh prints, and stream.c gives the
machine's bandwidth for the floor (*_min_bytes / bandwidth).

Usage: bench/lstm_cell/run.py [B] [H] [--build DIR] [--peers-python PY]
Prints one JSON line.
"""
import argparse
import json
import os
import re
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
PEERS = os.path.normpath(os.path.join(ROOT, "..", "shared", "peers"))


def source(b, h):
    t = lambda *s: "tensor<" + "x".join(map(str, s)) + "xf32>"
    cell = [f"func.func private @cell(%gates: {t(b, 4 * h)}, %c: {t(b, h)}) -> ({t(b, h)}, {t(b, h)}) {{"]
    for k, name in enumerate("ifgo"):
        cell.append(f"  %{name}0 = kiln.slice %gates, offsets = [0, {k * h}], sizes = [{b}, {h}] : {t(b, 4 * h)} -> {t(b, h)}")
    cell += [
        f"  %i = kiln.sigmoid %i0 : {t(b, h)}",
        f"  %f = kiln.sigmoid %f0 : {t(b, h)}",
        f"  %g = kiln.tanh %g0 : {t(b, h)}",
        f"  %o = kiln.sigmoid %o0 : {t(b, h)}",
        f"  %fc = kiln.mul %f, %c : {t(b, h)}",
        f"  %ig = kiln.mul %i, %g : {t(b, h)}",
        f"  %c2 = kiln.add %fc, %ig : {t(b, h)}",
        f"  %tc = kiln.tanh %c2 : {t(b, h)}",
        f"  %h2 = kiln.mul %o, %tc : {t(b, h)}",
        f"  return %h2, %c2 : {t(b, h)}, {t(b, h)}",
        "}",
    ]
    fwd = cell + [
        f"func.func @main(%gates: {t(b, 4 * h)}, %c: {t(b, h)}) -> ({t(b, h)}, {t(b, h)}) {{",
        f"  %r:2 = func.call @cell(%gates, %c) : ({t(b, 4 * h)}, {t(b, h)}) -> ({t(b, h)}, {t(b, h)})",
        f"  return %r#0, %r#1 : {t(b, h)}, {t(b, h)}",
        "}",
    ]
    fwd_bwd = cell + [
        f"func.func @main(%gates: {t(b, 4 * h)}, %c: {t(b, h)}, %dh: {t(b, h)}, %dc: {t(b, h)}) -> ({t(b, h)}, {t(b, h)}, {t(b, 4 * h)}, {t(b, h)}) {{",
        f"  %r:2 = func.call @cell(%gates, %c) : ({t(b, 4 * h)}, {t(b, h)}) -> ({t(b, h)}, {t(b, h)})",
        f"  %g:2 = kiln.vjp @cell(%gates, %c, %dh, %dc) wrt [0, 1] : ({t(b, 4 * h)}, {t(b, h)}, {t(b, h)}, {t(b, h)}) -> ({t(b, 4 * h)}, {t(b, h)})",
        f"  return %r#0, %r#1, %g#0, %g#1 : {t(b, h)}, {t(b, h)}, {t(b, 4 * h)}, {t(b, h)}",
        "}",
    ]
    return "\n".join(fwd) + "\n", "\n".join(fwd_bwd) + "\n"


def kiln_run(build, path, repeat):
    out = subprocess.run([os.path.join(build, "bin", "kiln-run"), path,
                          "--random-inputs", "1", "--repeat", str(repeat),
                          "--report", "--no-cache"], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def stream_bandwidth(tmp):
    exe = os.path.join(tmp, "stream")
    subprocess.run(["gcc", "-O3", "-march=native", "-fopenmp",
                    os.path.join(PEERS, "stream.c"), "-o", exe],
                   check=True, capture_output=True)
    out = subprocess.run([exe], capture_output=True, text=True, check=True).stdout
    m = re.search(r"copy ([0-9.]+) GB/s triad ([0-9.]+) GB/s", out)
    if not m:
        return {"output": out.strip()[-200:]}
    return {"copy_gbs": float(m.group(1)), "triad_gbs": float(m.group(2))}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("b", nargs="?", type=int, default=256)
    ap.add_argument("h", nargs="?", type=int, default=2048)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--repeat", type=int, default=30)
    ap.add_argument("--peers-python", default=None)
    args = ap.parse_args()
    out = {"bench": "lstm_cell", "B": args.b, "H": args.h}
    with tempfile.TemporaryDirectory(prefix="kiln-lstm-") as tmp:
        fwd, fwd_bwd = source(args.b, args.h)
        for name, text in (("fwd", fwd), ("fwd_bwd", fwd_bwd)):
            path = os.path.join(tmp, name + ".mlir")
            with open(path, "w") as f:
                f.write(text)
            r = kiln_run(args.build, path, args.repeat)
            out[f"kiln_{name}_s"] = r["run_ms"] / 1e3
            out[f"kiln_{name}_groups"] = r["fusion_groups"]
            out[f"kiln_{name}_kernels"] = r["unique_kernels"]
            out[f"kiln_{name}_launches"] = r["kernel_launches"]
        try:
            out.update({"stream_" + k: v for k, v in stream_bandwidth(tmp).items()})
        except Exception as e:  # noqa: BLE001
            out["stream_error"] = repr(e)[:200]
    py = args.peers_python
    if py is None:
        py = subprocess.run(["bash", os.path.join(PEERS, "setup.sh")],
                            capture_output=True, text=True).stdout.strip().splitlines()[-1]
    peer = subprocess.run([py, os.path.join(PEERS, "lstm_cell_peers.py"),
                           str(args.b), str(args.h)], capture_output=True, text=True)
    if peer.returncode == 0:
        for line in peer.stdout.strip().splitlines():
            try:
                for k, v in json.loads(line).items():
                    out["peer_" + k] = v
            except json.JSONDecodeError:
                pass
    else:
        out["peers_error"] = peer.stderr.strip()[-300:]
    bandwidth = out.get("stream_triad_gbs")
    for name in ("fwd", "fwd_bwd"):
        k = out[f"kiln_{name}_s"]
        floor_bytes = out.get(f"peer_{name}_min_bytes")
        if bandwidth and floor_bytes:
            out[f"{name}_floor_s"] = floor_bytes / (bandwidth * 1e9)
            out[f"kiln_{name}_over_floor"] = k / out[f"{name}_floor_s"]
        if f"peer_torch_eager_{name}_s" in out:
            out[f"speedup_{name}_vs_torch_eager"] = out[f"peer_torch_eager_{name}_s"] / k
        if f"peer_jax_xla_{name}_s" in out:
            out[f"speedup_{name}_vs_jax_xla"] = out[f"peer_jax_xla_{name}_s"] / k
    print(json.dumps(out))


if __name__ == "__main__":
    main()
