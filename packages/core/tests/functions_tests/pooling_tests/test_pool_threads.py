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
    monkeypatch.setattr(_pool_layout, "_MIN_SPLIT_BYTES", 1)
    step = _pool_layout._step(x, 200, 6 * 6 * 4)
    assert -(-200 // step) >= 2 * threads.OVERSPLIT
    monkeypatch.setattr(threads, "_num_threads", 1)
    assert _pool_layout._step(x, 200, 6 * 6 * 4) == 200


def test_small_work_keeps_fewer_larger_blocks(monkeypatch):
    # Blocks below _MIN_SPLIT_BYTES cost more GIL turns than they balance:
    # LeNet's second pool (1.28 MB of planes) gets one block per thread, its
    # first (4.6 MB) the cache-sized blocks rounded up to a multiple of the
    # threads, a 92 MB one its 2 MB blocks (at least OVERSPLIT per thread).
    monkeypatch.setattr(threads, "_num_threads", 2)
    x = np.zeros(1, np.float32)
    blocks = lambda n, b: -(-n // _pool_layout._step(x, n, b))  # noqa: E731
    assert blocks(5000, 256) == 2
    assert blocks(2000, 2304) == 4
    assert blocks(40000, 2304) == 44
    monkeypatch.setattr(threads, "_num_threads", 3)
    assert blocks(5000, 256) == 3
    monkeypatch.setattr(threads, "MIN_BYTES_PER_THREAD", 1)
    assert blocks(100, 256) == 3
