#!/usr/bin/env python3
"""kiln's side of bench/python/run.py (Debian's python3, PYTHONPATH=
build/python): per-op recording cost and the two training steps, plain lazy
and under kiln.jit. Prints one JSON line."""

import json
import sys
import time

import numpy as np

import kiln
from workloads import DEEP, LSTM, MLP, MLP_SGD, deep_batch, deep_weights, \
    lstm_batch, lstm_weights, mlp_batch, mlp_sgd_batch, mlp_sgd_weights, \
    mlp_weights, record_ops, time_loop


def record_kiln_ops():
    return record_ops(kiln.tensor(np.ones((4, 4), np.float32)),
                      kiln.tensor(np.ones((4, 4), np.float32)))


def lstm_step_fn():
    w = [kiln.tensor(a, requires_grad=True)
         for a in lstm_weights(np.random.default_rng(1))]
    embed, wx, wh, bias, wout, bout = w
    opt = kiln.optim.SGD(w, lr=LSTM["lr"])
    b, h_size = LSTM["batch"], LSTM["hidden"]

    def step(tokens):  # tokens: [seq + 1, batch, vocab] one-hot
        opt.zero_grad()
        h = kiln.zeros((b, h_size))
        c = kiln.zeros((b, h_size))
        loss = None
        for t in range(LSTM["seq"]):
            x = tokens[t] @ embed
            gates = x @ wx.T + h @ wh.T + bias
            i, f, g, o = kiln.chunk(gates, 4, dim=1)
            c = f.sigmoid() * c + i.sigmoid() * g.tanh()
            h = o.sigmoid() * c.tanh()
            logits = h @ wout + bout
            term = -(kiln.log_softmax(logits, 1) * tokens[t + 1]).sum()
            loss = term if loss is None else loss + term
        loss = loss / (b * LSTM["seq"])
        loss.backward()
        opt.step()
        return loss

    rng = np.random.default_rng(2)
    data = [(kiln.tensor(lstm_batch(rng)),) for _ in range(16)]
    return step, data


def mlp_step_fn():
    w = [kiln.tensor(a, requires_grad=True)
         for a in mlp_weights(np.random.default_rng(1))]
    w1, b1, w2, b2 = w
    opt = kiln.optim.Adam(w, lr=MLP["lr"])

    def step(x, y):
        opt.zero_grad()
        logits = (x @ w1 + b1).relu() @ w2 + b2
        loss = -(kiln.log_softmax(logits, 1) * y).sum(dim=1).mean()
        loss.backward()
        opt.step()
        return loss

    rng = np.random.default_rng(2)
    data = [tuple(kiln.tensor(a) for a in mlp_batch(rng)) for _ in range(16)]
    return step, data


def classifier_step_fn(weights, make_opt, make_batch):
    """A tanh classifier's training step (softmax cross-entropy on class
    labels) with `make_opt`'s optimizer, and its batches."""
    w = [kiln.tensor(a, requires_grad=True) for a in weights]
    opt = make_opt(w)

    def step(x, y):
        opt.zero_grad()
        h = x
        for i in range(0, len(w), 2):
            h = h @ w[i] + w[i + 1]
            if i + 2 < len(w):
                h = h.tanh()
        loss = kiln.nn.functional.cross_entropy(h, y)
        loss.backward()
        opt.step()
        return loss

    rng = np.random.default_rng(2)
    data = [tuple(kiln.tensor(a) for a in make_batch(rng)) for _ in range(16)]
    return step, data


def mlp_sgd_step_fn():
    return classifier_step_fn(
        mlp_sgd_weights(np.random.default_rng(1)),
        lambda w: kiln.optim.SGD(w, lr=MLP_SGD["lr"],
                                 momentum=MLP_SGD["momentum"]),
        mlp_sgd_batch)


def deep_adam_step_fn(layers):
    return classifier_step_fn(
        deep_weights(np.random.default_rng(1), layers),
        lambda w: kiln.optim.Adam(w, lr=DEEP["lr"]), deep_batch)


def time_steps(step, data, steps):
    """Microseconds per step, and the last loss (read after the loop: plain
    lazy mode computes a step's update with the next step)."""
    return time_loop(lambda i: step(*data[i % len(data)]), steps,
                     lambda loss: loss.item())


def measure(make, steps):
    out = {}
    step, data = make()
    before = kiln.metrics()
    out["plain_step_us"], _ = time_steps(step, data, steps)
    out["plain_compiles"] = kiln.metrics()["compiles"] - \
        before["compiles"]
    step, data = make()
    jitted = kiln.jit(step)
    out["jit_step_us"], out["loss"] = time_steps(jitted, data, steps)
    # A replay's own host overhead: the step's time less the time its
    # programs run (binding, rebinding, new tensors, the Python call).
    m0 = kiln.metrics()
    t0 = time.perf_counter()
    for i in range(steps):
        jitted(*data[i % len(data)])
    total = (time.perf_counter() - t0) / steps * 1e6
    m1 = kiln.metrics()
    run = (m1["run_ms"] - m0["run_ms"]) * 1e3 / steps
    out["jit_host_us"] = total - run
    # The programs' run time split: kernels (and BLAS calls), and the rest
    # (the executable's host program), in a pass with kernel timing on.
    kiln.set_kernel_timing(True)
    k0 = kiln.metrics()
    for i in range(steps):
        jitted(*data[i % len(data)])
    k1 = kiln.metrics()
    kiln.set_kernel_timing(False)
    out["jit_run_us"] = run
    out["jit_kernel_us"] = (k1["kernel_ms"] - k0["kernel_ms"]) * 1e3 / steps
    # The rest of a run: the host program and the executable's own checks
    # (host work that jit_host_us, outside the runs, does not count).
    out["jit_run_host_us"] = out["jit_run_us"] - out["jit_kernel_us"]
    out["jit_launches"] = (k1["kernel_launches"] - k0["kernel_launches"]) \
        // steps
    out["jit_replays"] = jitted.replays
    out["jit_compiles"] = m1["compiles"] - m0["compiles"]
    out["jit_traced_ops"] = m1["traced_ops"] - m0["traced_ops"]
    return out


def main():
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    result = {"record": record_kiln_ops()}
    result["lstm"] = measure(lstm_step_fn, steps)
    result["mlp"] = measure(mlp_step_fn, steps)
    result["mlp_sgd"] = measure(mlp_sgd_step_fn, steps)
    result["adam16"] = measure(lambda: deep_adam_step_fn(8), steps)
    result["adam64"] = measure(lambda: deep_adam_step_fn(32), steps)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
