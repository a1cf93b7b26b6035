"""Pooling split over the intra-op threads gives exactly the single-thread
results (max and average, overlapping and disjoint windows, both passes)."""

from __future__ import annotations

import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari.functions.pooling import _pool_layout
from kusari.utils import threads

CASES = [
    ("max_overlap", lambda x: F.max_pooling_2d(x, 3, 2, pad=1)),
    ("max_disjoint", lambda x: F.max_pooling_2d(x, 2, 2)),
    ("avg_overlap", lambda x: F.average_pooling_2d(x, 3, 2, pad=1)),
    ("avg_disjoint", lambda x: F.average_pooling_2d(x, 2, 2)),
    ("max_3d", lambda x: F.max_pooling_nd(x.reshape(4, 3, 2, 12, 6), 2, 2)),
]


def run(fn, x, gy_seed=3):
    v = kusari.Variable(x)
    y = fn(v)
    y.grad = np.random.default_rng(gy_seed).standard_normal(y.shape).astype(y.dtype)
    y.backward()
    return y.array, v.grad


@pytest.mark.parametrize("name,fn", CASES, ids=[c[0] for c in CASES])
def test_threads_match_one_thread(name, fn, monkeypatch):
    x = np.random.default_rng(0).standard_normal((4, 3, 12, 12)).astype(np.float32)
    # Several blocks of planes, so that there is something to split.
    monkeypatch.setattr(_pool_layout, "_CHUNK_BYTES", 600)
    monkeypatch.setattr(threads, "_num_threads", 1)
    one = run(fn, x)
    monkeypatch.setattr(threads, "_num_threads", 3)
    monkeypatch.setattr(threads, "MIN_BYTES_PER_THREAD", 1)
    pieces = []
    real = threads.run_split
    monkeypatch.setattr(
        threads, "run_split", lambda f, n, b: pieces.append(n) or real(f, n, b)
    )
    many = run(fn, x)
    assert pieces and max(pieces) > 1
    for a, b in zip(one, many):
        np.testing.assert_array_equal(a, b)


def test_blocks_several_per_thread(monkeypatch):
    # Each thread gets OVERSPLIT blocks of planes, so that a thread that
    # starts late leaves some of its share to the others.
    x = np.zeros((8, 25, 6, 6), np.float32)
    monkeypatch.setattr(threads, "_num_threads", 2)
    monkeypatch.setattr(threads, "MIN_BYTES_PER_THREAD", 1)
    step = _pool_layout._step(x, 200, 6 * 6 * 4)
    assert -(-200 // step) >= 2 * threads.OVERSPLIT
    monkeypatch.setattr(threads, "_num_threads", 1)
    assert _pool_layout._step(x, 200, 6 * 6 * 4) == 200


def test_overlapping_max_backward_is_split(monkeypatch):
    # The scatter at the argmax of overlapping windows runs over blocks of
    # planes on the pool, with the single-thread result.
    from kusari.functions.pooling import _pool_core

    x = np.random.default_rng(5).standard_normal((6, 4, 9, 9)).astype(np.float32)
    fn = CASES[0][1]
    monkeypatch.setattr(threads, "_num_threads", 1)
    one = run(fn, x)
    monkeypatch.setattr(threads, "_num_threads", 3)
    monkeypatch.setattr(threads, "MIN_BYTES_PER_THREAD", 1)
    monkeypatch.setattr(threads, "MIN_BYTES_PER_CHUNK", 1)
    calls = []
    real = threads.run_split

    def spy(f, n, b):
        calls.append(n)
        return real(f, n, b)

    monkeypatch.setattr(threads, "run_split", spy)
    real_scatter = _pool_core.index_scatter
    scatter_calls = []

    def scatter(*args):
        before = len(calls)
        out = real_scatter(*args)
        scatter_calls.append(calls[before:])
        return out

    monkeypatch.setattr(_pool_core, "index_scatter", scatter)
    many = run(fn, x)
    assert scatter_calls and all(c and c[0] > 3 for c in scatter_calls)
    for a, b in zip(one, many):
        np.testing.assert_array_equal(a, b)
