"""Shared fixtures for kusari's core tests."""

from __future__ import annotations

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


@pytest.fixture(params=[np.float16, np.float32, np.float64], ids=["f16", "f32", "f64"])
def float_dtype(request: pytest.FixtureRequest) -> type:
    """The three float dtypes Chainer's functions support."""
    return request.param


@pytest.fixture(autouse=True)
def _seed_global_rng(request: pytest.FixtureRequest) -> None:
    """Seed NumPy's global RNG per test, from the test's id.

    Initializers and random ops draw from it, so without this a test's
    numbers would depend on which tests ran before it.
    """
    import zlib

    np.random.seed(zlib.crc32(request.node.nodeid.encode()))


@pytest.fixture
def gemm_blocks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Split even test-sized GEMMs over the pool (functions/math/_gemm_split);
    the list collects the block count of each product handed to the pool."""
    from kusari.functions.math import _gemm_split
    from kusari.utils import threads

    monkeypatch.setattr(_gemm_split, "MIN_BLOCK_WORK", 1)
    calls: list[int] = []
    real = threads.parallel_for
    monkeypatch.setattr(
        threads, "parallel_for", lambda f, n: calls.append(n) or real(f, n)
    )
    return calls
