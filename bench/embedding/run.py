#!/usr/bin/env python3
"""Embedding backward: the cotangent of a [8, 1024] id lookup into a
[50304, 768] table (GPT-2's), summed into the table's gradient with
repeated ids, in kiln (kiln.scatter_add through the Python API) and in
PyTorch (embedding_dense_backward, and index_add_), in one run; prints one
JSON line. kiln's result must have the same bits on every run.

Usage: bench/embedding/run.py [REPEATS] [--build DIR] [--peers-python PY]
"""
import argparse
import json
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from common import ROOT, peers_python, run_json  # noqa: E402
VOCAB, DIM, BATCH, SEQ = 50304, 768, 8, 1024


def data():
    rng = np.random.default_rng(0)
    # Zipf-like ids: many repeats, as text has.
    ids = np.minimum(rng.zipf(1.2, (BATCH, SEQ)) - 1, VOCAB - 1)
    ct = rng.standard_normal((BATCH, SEQ, DIM)).astype(np.float32)
    return ids.astype(np.int64), ct


def median_ms(fn, repeats):
    fn()
    times = []
    for _ in range(repeats):
        begin = time.perf_counter()
        fn()
        times.append(time.perf_counter() - begin)
    return round(1e3 * float(np.median(times)), 2)


def kiln_side(repeats):
    import kiln
    ids, ct = data()
    table = kiln.zeros(VOCAB, DIM)
    out = {}

    def step():
        g = kiln.scatter_add(table, kiln.from_numpy(ids), kiln.from_numpy(ct))
        out["value"] = g.numpy()
    out_ms = median_ms(step, repeats)
    first = out["value"].copy()
    step()
    same = bool(np.array_equal(first.view(np.uint32),
                               out["value"].view(np.uint32)))
    reference = np.zeros((VOCAB, DIM), np.float32)
    np.add.at(reference, ids.reshape(-1), ct.reshape(-1, DIM))
    return {"median_ms": out_ms, "same_bits_every_run": same,
            "max_abs_error_vs_numpy": float(np.abs(first - reference).max()),
            "compiles": kiln.metrics()["compiles"]}


def torch_side(repeats):
    import torch
    ids, ct = data()
    tids, tct = torch.from_numpy(ids), torch.from_numpy(ct)
    result = {"version": torch.__version__,
              "threads": torch.get_num_threads()}
    result["embedding_dense_backward_ms"] = median_ms(
        lambda: torch.ops.aten.embedding_dense_backward(
            tct, tids, VOCAB, -1, False), repeats)
    result["index_add_ms"] = median_ms(
        lambda: torch.zeros(VOCAB, DIM).index_add_(
            0, tids.reshape(-1), tct.reshape(-1, DIM)), repeats)
    return result


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("repeats", nargs="?", type=int, default=10)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--peers-python", default=None)
    ap.add_argument("--side", choices=["kiln", "torch"], default=None)
    args = ap.parse_args()
    if args.side:
        side = kiln_side if args.side == "kiln" else torch_side
        print(json.dumps(side(args.repeats)))
        return
    argv = [os.path.abspath(__file__), "--side"]
    kiln = run_json("/usr/bin/python3", argv + ["kiln", str(args.repeats)],
                    [os.path.join(os.path.abspath(args.build), "python")])
    torch = run_json(args.peers_python or peers_python(),
                     argv + ["torch", str(args.repeats)])
    result = {"shape": {"table": [VOCAB, DIM], "ids": [BATCH, SEQ]},
              "kiln": kiln, "torch": torch}
    best = min((v for k, v in torch.items() if k.endswith("_ms")),
               default=None)
    if best and kiln.get("median_ms"):
        result["goals"] = {
            "speedup_vs_torch_best": round(best / kiln["median_ms"], 2),
            "at_least_as_fast_as_torch": kiln["median_ms"] <= best,
            "same_bits_every_run": kiln.get("same_bits_every_run")}
    print(json.dumps(result))


if __name__ == "__main__":
    sys.exit(main())
