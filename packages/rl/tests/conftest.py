"""Shared fixtures for kusari-rl's tests."""

from __future__ import annotations

import random
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest

from kusari.backends import cuda

_gpu = pytest.mark.skipif(
    not cuda.available, reason="CuPy / a CUDA GPU is not available"
)


@pytest.fixture(
    params=["@numpy", pytest.param("@cupy:0", marks=[pytest.mark.gpu, _gpu])]
)
def device(request: pytest.FixtureRequest) -> str:
    """Run a test on the CPU and, where CuPy is present, on GPU 0."""
    return request.param


@pytest.fixture(autouse=True)
def _seed_global_rngs(request: pytest.FixtureRequest) -> None:
    """Seed Python's and NumPy's global RNGs per test, from the test's id.

    Explorers, replay sampling and initializers draw from them, so a test's
    numbers must not depend on which tests ran before it.
    """
    seed = zlib.crc32(request.node.nodeid.encode())
    random.seed(seed)
    np.random.seed(seed)


BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.fixture(scope="module")
def bench():
    """The benchmarks' kusari-rl side (``benchmarks/_kusari.py``), imported
    from its folder for the module's tests (a module may define its own)."""
    sys.path.insert(0, str(BENCHMARKS))
    try:
        import _kusari

        yield _kusari
    finally:
        sys.path.remove(str(BENCHMARKS))
