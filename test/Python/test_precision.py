"""kiln.set_float32_matmul_precision, as torch.set_float32_matmul_precision:
a setting the lazy tensors compile with (programs under another setting are
compiled and cached apart). The CPU computes f32 products in f32 under any
setting; the CUDA backend runs them on tensor cores (test/GPU)."""

import numpy as np
import pytest

import kiln


@pytest.fixture(autouse=True)
def restore_precision():
    yield
    kiln.set_float32_matmul_precision("highest")


def test_the_default_is_highest_and_the_setting_is_read_back():
    assert kiln.get_float32_matmul_precision() == "highest"
    for name in ("high", "medium", "highest"):
        kiln.set_float32_matmul_precision(name)
        assert kiln.get_float32_matmul_precision() == name


def test_a_bad_setting_is_refused_and_changes_nothing():
    kiln.set_float32_matmul_precision("high")
    # PyTorch warns and ignores these; kiln says what it takes.
    with pytest.raises(ValueError, match="'low' is not one of 'highest', "
                       "'high' or 'medium'"):
        kiln.set_float32_matmul_precision("low")
    with pytest.raises(ValueError, match="'HIGH' is not one of"):
        kiln.set_float32_matmul_precision("HIGH")
    with pytest.raises(TypeError, match="expects a str, but got int"):
        kiln.set_float32_matmul_precision(3)
    assert kiln.get_float32_matmul_precision() == "high"


def test_each_setting_compiles_its_own_program_and_the_cpu_computes_f32(rng):
    a = rng.standard_normal((6, 32)).astype(np.float32)
    b = rng.standard_normal((32, 5)).astype(np.float32)
    want = (a.astype(np.float64) @ b.astype(np.float64))
    results, compiles = {}, {}
    for name in ("highest", "high", "medium", "high"):
        kiln.set_float32_matmul_precision(name)
        before = kiln.metrics()["compiles"]
        # A fresh sum each time: a new program, equal in structure.
        got = ((kiln.tensor(a) @ kiln.tensor(b)) * 1.5).numpy()
        compiles[name] = compiles.get(name, 0) + (
            kiln.metrics()["compiles"] - before)
        results.setdefault(name, got)
        np.testing.assert_allclose(got, 1.5 * want, rtol=1e-5, atol=1e-5)
    # One compile per setting: the second "high" found its program.
    assert compiles == {"highest": 1, "high": 1, "medium": 1}
    # The CPU has no faster path for TF32 or bf16: the same f32 results.
    assert np.array_equal(results["high"], results["highest"])
    assert np.array_equal(results["medium"], results["highest"])


def test_a_jit_step_records_again_under_another_setting(rng):
    w = kiln.tensor(rng.standard_normal((8, 4)).astype(np.float32),
                    requires_grad=True)
    x = kiln.tensor(rng.standard_normal((16, 8)).astype(np.float32))

    @kiln.jit
    def step(x):
        loss = (x @ w).tanh().sum()
        loss.backward()
        return loss

    for _ in range(4):
        step(x)
    replays = step.replays
    kiln.set_float32_matmul_precision("medium")
    recorded = step.recorded_calls
    loss = step(x)
    assert step.recorded_calls == recorded + 1 and step.replays == replays
    np.testing.assert_allclose(
        loss.item(), np.tanh(x.numpy() @ w.detach().numpy()).sum(),
        rtol=1e-5)
