"""relu's forward and backward on large arrays are split over the intra-op
threads and give exactly the single-thread results."""

from __future__ import annotations

import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari.functions.activation import relu as relu_mod
from kusari.utils import threads


def _fwd_bwd(x, gy):
    xv = kusari.Variable(x)
    y = F.relu(xv)
    y.grad = gy
    y.backward()
    return y.array, xv.grad


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("shape", [(7, 5, 11), (1,), (3, 0, 4)])
def test_split_matches_one_thread(dtype, shape, monkeypatch):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape).astype(dtype)
    x.reshape(-1)[::7] = 0  # ties at zero: gradient 0, as unsplit
    gy = rng.standard_normal(shape).astype(dtype)
    monkeypatch.setattr(threads, "_num_threads", 1)
    one = _fwd_bwd(x, gy)
    monkeypatch.setattr(threads, "_num_threads", 3)
    monkeypatch.setattr(threads, "MIN_ELEMENTS", 1)
    monkeypatch.setattr(threads, "MIN_BYTES_PER_THREAD", 1)
    split = []
    real = threads.parallel_for
    monkeypatch.setattr(
        threads, "parallel_for", lambda fn, n: split.append(n) or real(fn, n)
    )
    many = _fwd_bwd(x, gy)
    if x.size >= 3:
        assert len(split) == 2, "forward and backward should both be split"
    for a, b in zip(one, many):
        assert a.dtype == b.dtype == dtype
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(many[0], np.maximum(x, 0))
    np.testing.assert_array_equal(many[1], gy * (x > 0))


def test_grad_of_noncontiguous_operands_is_computed_whole(monkeypatch):
    monkeypatch.setattr(threads, "_num_threads", 2)
    monkeypatch.setattr(threads, "MIN_BYTES_PER_THREAD", 1)
    rng = np.random.default_rng(1)
    y = np.maximum(rng.standard_normal((6, 8)).astype(np.float32), 0)
    gy = rng.standard_normal((8, 6)).astype(np.float32).T
    out = relu_mod._relu_grad_split(y, gy)
    np.testing.assert_array_equal(out, gy * (y > 0))


def test_small_arrays_stay_on_one_thread(monkeypatch):
    monkeypatch.setattr(threads, "_num_threads", 2)
    monkeypatch.setattr(threads, "MIN_BYTES_PER_THREAD", 1)
    monkeypatch.setattr(
        threads,
        "parallel_for",
        lambda fn, n: pytest.fail("a small relu was split"),
    )
    x = np.linspace(-1, 1, threads.MIN_ELEMENTS - 1).astype(np.float32)
    y, gx = _fwd_bwd(x, np.ones_like(x))
    np.testing.assert_array_equal(y, np.maximum(x, 0))
    np.testing.assert_array_equal(gx, (x > 0).astype(np.float32))
