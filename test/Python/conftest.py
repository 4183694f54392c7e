"""pytest setup for kiln's Python tests: run by check-kiln (pytest.test)
with PYTHONPATH=build/python, or by hand the same way."""

import numpy as np
import pytest


@pytest.fixture
def rng():
    return np.random.default_rng(0)


def assert_close(actual, expected, rtol=1e-5, atol=1e-6):
    np.testing.assert_allclose(np.asarray(actual), np.asarray(expected),
                               rtol=rtol, atol=atol)
