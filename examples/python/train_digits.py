#!/usr/bin/env python3
"""Trains an MLP on scikit-learn's 8x8 digits with kiln, the PyTorch way.

Parameters are leaves with requires_grad=True; the training step calls
loss.backward() and kiln.optim.Adam's step(), and runs under kiln.jit: its
first calls record and compile the step once; every later call replays the
compiled program without recording an op.

    PYTHONPATH=build/python python3 examples/python/train_digits.py

Prints a progress bar, the loss curve, the held-out accuracy and
kiln.metrics() for the training loop (one compile for the training step),
and a last line of JSON with the figures.
"""

import argparse
import json
import sys
import time

import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

import kiln


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--hidden", type=int, default=128)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-jit", action="store_true",
                    help="record every step (plain lazy mode)")
    return ap.parse_args()


def progress(epoch, epochs, loss, width=30):
    done = int(width * epoch / epochs)
    bar = "#" * done + "." * (width - done)
    end = "\n" if epoch == epochs or not sys.stdout.isatty() else ""
    print(f"\repoch {epoch:3d}/{epochs} [{bar}] loss {loss:.4f}", end=end,
          flush=True)


def loss_curve(losses, height=8, width=60):
    """The per-epoch losses as a small text chart."""
    picks = [losses[int(i * len(losses) / min(width, len(losses)))]
             for i in range(min(width, len(losses)))]
    lo, hi = min(picks), max(picks)
    rows = []
    for level in range(height, 0, -1):
        threshold = lo + (hi - lo) * (level - 0.5) / height
        rows.append(f"{lo + (hi - lo) * level / height:8.4f} |" +
                    "".join("*" if v >= threshold else " " for v in picks))
    rows.append(" " * 9 + "+" + "-" * len(picks) + "> epoch")
    return "\n".join(rows)


def main():
    args = parse_args()
    rng = np.random.default_rng(args.seed)
    digits = load_digits()
    x = (digits.data / 16.0).astype(np.float32)
    y = digits.target
    x_train, x_test, y_train, y_test = train_test_split(
        x, y, test_size=0.2, random_state=args.seed, stratify=y)
    onehot = np.eye(10, dtype=np.float32)

    def layer(n_in, n_out):
        w = rng.standard_normal((n_in, n_out)) * np.sqrt(2.0 / n_in)
        return (kiln.tensor(w.astype(np.float32), requires_grad=True),
                kiln.zeros((n_out,), requires_grad=True))

    w1, b1 = layer(64, args.hidden)
    w2, b2 = layer(args.hidden, 10)
    params = [w1, b1, w2, b2]
    opt = kiln.optim.Adam(params, lr=args.lr)

    def forward(inputs):
        return (inputs @ w1 + b1).relu() @ w2 + b2

    def train_step(inputs, targets):
        opt.zero_grad()
        logits = forward(inputs)
        loss = -(kiln.log_softmax(logits, axis=1) * targets).sum(axis=1) \
            .mean()
        loss.backward()
        opt.step()
        return loss

    step = train_step if args.no_jit else kiln.jit(train_step)

    # Full batches only: one shape, so one compiled training step.
    batches_per_epoch = len(x_train) // args.batch
    before = kiln.metrics()
    start = time.perf_counter()
    epoch_losses = []
    for epoch in range(1, args.epochs + 1):
        order = rng.permutation(len(x_train))
        losses = []
        for b in range(batches_per_epoch):
            idx = order[b * args.batch:(b + 1) * args.batch]
            losses.append(step(x_train[idx], onehot[y_train[idx]]))
        epoch_losses.append(float(np.mean([l.item() for l in losses])))
        progress(epoch, args.epochs, epoch_losses[-1])
    seconds = time.perf_counter() - start
    after = kiln.metrics()
    training = {key: after[key] - before[key]
                for key in ("traced_ops", "compiles", "cache_hits",
                            "cache_misses", "runs", "replays")}
    training["compile_ms"] = round(after["compile_ms"] - before["compile_ms"],
                                   1)
    training["run_ms"] = round(after["run_ms"] - before["run_ms"], 1)
    training["live_bytes"] = after["live_bytes"]

    predicted = forward(kiln.tensor(x_test)).numpy().argmax(axis=1)
    accuracy = float((predicted == y_test).mean())
    steps = args.epochs * batches_per_epoch

    print("\nloss per epoch:")
    print(loss_curve(epoch_losses))
    print(f"\nheld-out accuracy: {accuracy:.4f} ({len(y_test)} digits)")
    print(f"training: {steps} steps in {seconds:.2f} s "
          f"({1e6 * seconds / steps:.0f} us per step)")
    print("kiln.metrics() over the training loop:", training)
    print(json.dumps({"accuracy": accuracy, "steps": steps,
                      "seconds": round(seconds, 3),
                      "loss_first": epoch_losses[0],
                      "loss_last": epoch_losses[-1],
                      "training": training}))


if __name__ == "__main__":
    main()
