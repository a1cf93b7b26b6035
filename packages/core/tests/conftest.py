"""Shared fixtures for kusari's core tests."""

from __future__ import annotations

from collections.abc import Iterator

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


@pytest.fixture
def blas_holds(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """``threads.blas_controller`` faked with one BLAS library at 2 threads:
    the list gets a 1 each time a kernel holds BLAS at one thread, and the
    count must be back at 2 when the test ends."""
    from kusari.utils import threads

    held: list[int] = []

    class _Lib:
        n = 2

        def get_num_threads(self) -> int:
            return self.n

        def set_num_threads(self, n: int) -> None:
            if n == 1:
                held.append(1)
            self.n = n

    class _Ctl:
        lib_controllers = [_Lib()]

    ctl = _Ctl()
    monkeypatch.setattr(threads, "blas_controller", lambda: ctl)
    yield held
    assert ctl.lib_controllers[0].n == 2, "BLAS threads not restored"
