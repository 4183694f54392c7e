"""The Python examples run as documented and reach their goals."""

import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))


def run_example(name, *args):
    out = subprocess.run(
        [sys.executable, os.path.join(ROOT, "examples", "python", name),
         *args], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    return out.stdout, json.loads(out.stdout.strip().splitlines()[-1])


def test_train_digits_reaches_95_percent_with_one_compile():
    pytest.importorskip("sklearn")
    text, result = run_example("train_digits.py")
    assert result["accuracy"] >= 0.95
    assert result["loss_last"] < result["loss_first"] / 10
    training = result["training"]
    # kiln.jit: the training step compiles once; the first calls record,
    # every later one replays.
    assert training["compiles"] == 1
    assert training["replays"] == result["steps"] - 3
    assert "held-out accuracy" in text and "loss per epoch" in text
    assert "epoch  30/30 [" in text
