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


def test_train_gpt_learns_and_resumes(tmp_path):
    """The character-level GPT falls below 2.5 nats per character within
    300 steps on the default file, compiles nothing from step 3 on (with
    dropout and a cosine learning rate), and resumes from its checkpoint."""
    ckpt = str(tmp_path / "gpt.safetensors")
    text, result = run_example("train_gpt.py", "--checkpoint", ckpt)
    assert result["steps"] == 300
    assert result["mean_last_10"] < 2.5, result
    assert result["compiles_after_step_3"] == 0
    assert result["replays"] == 297
    assert "sample: " in text
    text, resumed = run_example("train_gpt.py", "--resume", ckpt,
                                "--steps", "305", "--sample", "8")
    assert resumed["steps"] == 5
    # The weights, the optimizer's moments and the schedule came back: the
    # loss goes on from where it was, not from the start (4.3).
    assert resumed["first_loss"] < result["mean_last_10"] + 0.2, resumed
