"""F.matmul's 2-d products split over the intra-op threads: values against
one thread, the same bits at 2 and 3 threads; batched products not split."""

from __future__ import annotations

import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari.functions.math import _gemm_split
from kusari.utils import threads


@pytest.fixture
def gemm_blocks(gemm_blocks, monkeypatch):
    # conftest's fixture lowers the work per block; test-sized products also
    # need shorter blocks than MIN_BLOCK_LEN.
    monkeypatch.setattr(_gemm_split, "MIN_BLOCK_LEN", 1)
    return gemm_blocks


def _rand(shape, dtype, seed):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


@pytest.mark.parametrize("transa", [False, True])
@pytest.mark.parametrize("transb", [False, True])
def test_matmul_2d_threads(transa, transb, gemm_blocks, monkeypatch):
    a = _rand((48, 40) if transa else (40, 48), np.float32, 11)
    b = _rand((64, 48) if transb else (48, 64), np.float32, 12)
    gy = _rand((40, 64), np.float32, 13)

    def run():
        va, vb = kusari.Variable(a), kusari.Variable(b)
        y = F.matmul(va, vb, transa=transa, transb=transb)
        y.grad = gy
        y.backward()
        return y.array, va.grad, vb.grad

    monkeypatch.setattr(threads, "_num_threads", 1)
    one = run()
    monkeypatch.setattr(threads, "_num_threads", 3)
    three = run()
    assert gemm_blocks and max(gemm_blocks) > 1
    monkeypatch.setattr(threads, "_num_threads", 2)
    two = run()
    for o, t2, t3 in zip(one, two, three):
        np.testing.assert_allclose(t3, o, rtol=1e-5, atol=1e-5)
        np.testing.assert_array_equal(t2, t3)
    oa = a.T if transa else a
    ob = b.T if transb else b
    np.testing.assert_allclose(three[0], oa @ ob, rtol=1e-5, atol=1e-5)


def test_matmul_batched_not_split(gemm_blocks, monkeypatch):
    monkeypatch.setattr(threads, "_num_threads", 3)
    a, b = _rand((2, 40, 48), np.float32, 14), _rand((2, 48, 64), np.float32, 15)
    y = F.matmul(a, b).array
    assert gemm_blocks == []
    np.testing.assert_array_equal(y, np.matmul(a, b))
