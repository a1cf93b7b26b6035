"""Batch normalization split over the intra-op threads (by channel) matches
one thread: forward with batch statistics (output, running averages),
backward (gx, ggamma, gbeta) and the fixed-statistics forward."""

from __future__ import annotations

import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari.utils import threads

CASES = [
    # x shape, x dtype, gamma dtype, axis
    ((4, 6, 5, 3), np.float32, np.float32, None),
    ((4, 5, 5, 3), np.float64, np.float64, None),
    ((9, 7), np.float32, np.float32, None),
    ((4, 6, 5), np.float16, np.float32, None),
    ((3, 4, 6), np.float32, np.float32, (0, 1)),  # channels last
]


def run(shape, dtype, pdtype, axis):
    rng = np.random.default_rng(0)
    c_shape = tuple(
        s
        for i, s in enumerate(shape)
        if i not in (axis or (0,) + tuple(range(2, len(shape))))
    )
    x = kusari.Variable((rng.standard_normal(shape) * 2 + 1).astype(dtype))
    gamma = kusari.Variable(rng.uniform(0.5, 1.5, c_shape).astype(pdtype))
    beta = kusari.Variable(rng.standard_normal(c_shape).astype(pdtype))
    running = [np.zeros(c_shape, pdtype), np.ones(c_shape, pdtype)]
    y = F.batch_normalization(
        x, gamma, beta, running_mean=running[0], running_var=running[1], axis=axis
    )
    y.grad = rng.standard_normal(shape).astype(dtype)
    y.backward()
    mean = rng.standard_normal(c_shape).astype(pdtype)
    var = rng.uniform(0.5, 2, c_shape).astype(pdtype)
    fixed = F.fixed_batch_normalization(
        x.array, gamma.array, beta.array, mean, var, axis=axis
    )
    return {
        "y": y.array,
        "gx": x.grad,
        "ggamma": gamma.grad,
        "gbeta": beta.grad,
        "running_mean": running[0],
        "running_var": running[1],
        "fixed": fixed.array,
    }


@pytest.mark.parametrize("shape,dtype,pdtype,axis", CASES)
def test_threads_match_one_thread(shape, dtype, pdtype, axis, monkeypatch):
    monkeypatch.setattr(threads, "_num_threads", 1)
    one = run(shape, dtype, pdtype, axis)
    monkeypatch.setattr(threads, "_num_threads", 3)
    monkeypatch.setattr(threads, "MIN_BYTES_PER_THREAD", 1)
    tasks = []
    original = threads.parallel_for

    def counting(fn, n):
        tasks.append(n)
        original(fn, n)

    monkeypatch.setattr(threads, "parallel_for", counting)
    many = run(shape, dtype, pdtype, axis)
    # forward, backward and the fixed forward were each split in 3
    assert tasks.count(3) >= 3, tasks
    for key, want in one.items():
        got = many[key]
        assert got.dtype == want.dtype and got.shape == want.shape, key
        if key == "fixed":  # element-wise only: the same bits
            np.testing.assert_array_equal(got, want)
        else:  # per-channel sums of a narrower slice may round differently
            tol = {np.float16: 2e-3, np.float32: 1e-5, np.float64: 1e-12}[
                want.dtype.type
            ]
            np.testing.assert_allclose(got, want, rtol=tol, atol=tol, err_msg=key)


def test_small_inputs_are_not_split(monkeypatch):
    monkeypatch.setattr(threads, "_num_threads", 4)
    monkeypatch.setattr(
        threads, "parallel_for", lambda fn, n: pytest.fail("small input was split")
    )
    run((4, 6, 5, 3), np.float32, np.float32, None)


def test_statistics_are_those_of_numpy():
    # The channel-split computation against a direct NumPy one.
    rng = np.random.default_rng(5)
    x = rng.standard_normal((5, 3, 4)).astype(np.float64)
    gamma = rng.uniform(0.5, 1.5, 3)
    beta = rng.standard_normal(3)
    y = F.batch_normalization(x, gamma, beta, eps=1e-5).array
    mean = x.mean(axis=(0, 2), keepdims=True)
    var = x.var(axis=(0, 2), keepdims=True)
    want = (x - mean) / np.sqrt(var + 1e-5) * gamma[:, None] + beta[:, None]
    np.testing.assert_allclose(y, want, rtol=1e-12, atol=1e-12)
