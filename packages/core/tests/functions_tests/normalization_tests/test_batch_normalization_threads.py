"""Batch normalization's NumPy kernels in chunks over the intra-op threads.

The chunks depend on the shape only, so every result (statistics and sums
included) has the same bits at any thread count; both kernels, the one-pass
one (whole channels per chunk) and the two-pass one (channels cut along the
batch), match a float64 NumPy reference.
"""

from __future__ import annotations

import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari.functions.normalization import _batch_normalization_cpu as bn_cpu
from kusari.testing import check_op
from kusari.utils import threads

CASES = [
    # x shape, x dtype, gamma dtype, axis
    ((4, 6, 5, 3), np.float32, np.float32, None),
    ((4, 5, 5, 3), np.float64, np.float64, None),
    ((9, 7), np.float32, np.float32, None),
    ((4, 6, 5), np.float16, np.float32, None),
    ((5, 6, 4), np.float16, np.float16, None),
    ((4, 6, 5), np.float32, np.float64, None),
    ((3, 4, 6), np.float32, np.float32, (0, 1)),  # channels last
    ((3, 4, 6), np.float64, np.float64, (1,)),  # kept axes 0 and 2: transposed
]
# Elements per chunk: one chunk, whole channels, channels cut along A.
CHUNKS = [1 << 17, 40, 7]


def _c_shape(shape, axis):
    red = axis if axis is not None else (0,) + tuple(range(2, len(shape)))
    return tuple(s for i, s in enumerate(shape) if i not in red), red


def run(shape, dtype, pdtype, axis):
    rng = np.random.default_rng(0)
    c_shape, _ = _c_shape(shape, axis)
    x = kusari.Variable((rng.standard_normal(shape) * 2 + 1).astype(dtype))
    gamma = kusari.Variable(rng.uniform(0.5, 1.5, c_shape).astype(pdtype))
    beta = kusari.Variable(rng.standard_normal(c_shape).astype(pdtype))
    running = [np.zeros(c_shape, pdtype), np.ones(c_shape, pdtype)]
    y = F.batch_normalization(
        x, gamma, beta, running_mean=running[0], running_var=running[1], axis=axis
    )
    gy = rng.standard_normal(shape).astype(dtype)
    y.grad = gy
    y.backward()  # uses y.grad up (Chainer v6+): keep gy for the reference
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
        "inputs": (x.array, gamma.array, beta.array, gy, mean, var),
    }


def _reference(out, axis, shape):
    """The float64 results of the formulas, from ``run``'s inputs."""
    x, gamma, beta, gy, mean, var = (a.astype(np.float64) for a in out["inputs"])
    _, red = _c_shape(shape, axis)
    bs = tuple(1 if i in red else s for i, s in enumerate(shape))
    m = x.size // gamma.size
    mu = x.mean(axis=red, keepdims=True)
    v = x.var(axis=red, keepdims=True)
    x_hat = (x - mu) / np.sqrt(v + 2e-5)
    gb = gy.sum(axis=red, keepdims=True)
    gg = (gy * x_hat).sum(axis=red, keepdims=True)
    scale = gamma.reshape(bs) / np.sqrt(v + 2e-5)
    fixed_hat = (x - mean.reshape(bs)) / np.sqrt(var.reshape(bs) + 2e-5)
    return {
        "y": x_hat * gamma.reshape(bs) + beta.reshape(bs),
        "gx": scale * (gy - x_hat * gg / m - gb / m),
        "ggamma": gg.reshape(gamma.shape),
        "gbeta": gb.reshape(gamma.shape),
        "running_mean": 0.1 * mu.reshape(gamma.shape),
        "running_var": 0.9 + 0.1 * v.reshape(gamma.shape) * m / (m - 1),
        "fixed": fixed_hat * gamma.reshape(bs) + beta.reshape(bs),
    }


@pytest.mark.parametrize("chunk", CHUNKS)
@pytest.mark.parametrize("shape,dtype,pdtype,axis", CASES)
def test_threads_give_the_same_bits(shape, dtype, pdtype, axis, chunk, monkeypatch):
    monkeypatch.setattr(bn_cpu, "CHUNK_ELEMENTS", chunk)
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
    if chunk < 100:  # several chunks: forward, backward, fixed forward split
        assert len(tasks) >= 3 and all(n > 1 for n in tasks), tasks
    for key, want in one.items():
        if key != "inputs":
            got = many[key]
            assert got.dtype == want.dtype and got.shape == want.shape, key
            np.testing.assert_array_equal(got, want, err_msg=key)


@pytest.mark.parametrize("chunk", CHUNKS)
@pytest.mark.parametrize("shape,dtype,pdtype,axis", CASES)
def test_values_match_float64_reference(shape, dtype, pdtype, axis, chunk, monkeypatch):
    monkeypatch.setattr(bn_cpu, "CHUNK_ELEMENTS", chunk)
    monkeypatch.setattr(threads, "_num_threads", 2)
    monkeypatch.setattr(threads, "MIN_BYTES_PER_THREAD", 1)
    out = run(shape, dtype, pdtype, axis)
    want = _reference(out, axis, shape)
    low = np.float16 in (dtype, pdtype)
    tol = 3e-2 if low else 1e-5 if np.float32 in (dtype, pdtype) else 1e-10
    for key, w in want.items():
        got = out[key]
        assert got.dtype == (dtype if key in ("y", "gx", "fixed") else pdtype), key
        np.testing.assert_allclose(got, w, rtol=tol, atol=tol, err_msg=key)


@pytest.mark.parametrize("chunk", [40, 7])
def test_gradients_in_chunks(chunk, monkeypatch):
    # First and second order, through the chunked kernels (both kinds).
    monkeypatch.setattr(bn_cpu, "CHUNK_ELEMENTS", chunk)

    def ref(x, g, b):
        mu = x.mean(axis=(0, 2), keepdims=True)
        v = x.var(axis=(0, 2), keepdims=True)
        return g[:, None] * (x - mu) / np.sqrt(v + 2e-5) + b[:, None]

    def positive(rng, dtype):
        return rng.uniform(0.5, 1.5, 3).astype(dtype)

    check_op(
        lambda x, g, b: F.batch_normalization(x, g, b),
        ref,
        [(4, 3, 5), positive, (3,)],
        dtype=np.float64,
    )


def test_statistics_are_those_of_numpy():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((5, 3, 4)).astype(np.float64)
    gamma = rng.uniform(0.5, 1.5, 3)
    beta = rng.standard_normal(3)
    y = F.batch_normalization(x, gamma, beta, eps=1e-5).array
    mean = x.mean(axis=(0, 2), keepdims=True)
    var = x.var(axis=(0, 2), keepdims=True)
    want = (x - mean) / np.sqrt(var + 1e-5) * gamma[:, None] + beta[:, None]
    np.testing.assert_allclose(y, want, rtol=1e-12, atol=1e-12)


def test_large_mean_keeps_float32_accuracy(monkeypatch):
    # The variance is a sum of squares about the mean (per chunk, then the
    # chunks' means combined): no cancellation when |mean| >> std.
    monkeypatch.setattr(bn_cpu, "CHUNK_ELEMENTS", 9)
    x = (np.random.default_rng(6).standard_normal((8, 2, 6)) + 1e4).astype(np.float32)
    one, zero = np.ones(2, np.float32), np.zeros(2, np.float32)
    y = F.batch_normalization(x, one, zero, eps=0.0).array
    x64 = x.astype(np.float64)
    mu = x64.mean(axis=(0, 2), keepdims=True)
    want = (x64 - mu) / x64.std(axis=(0, 2), keepdims=True)
    np.testing.assert_allclose(y, want, atol=2e-3)


def test_non_contiguous_input(monkeypatch):
    monkeypatch.setattr(bn_cpu, "CHUNK_ELEMENTS", 10)
    rng = np.random.default_rng(7)
    x = rng.standard_normal((6, 5, 4)).transpose(2, 1, 0)  # (4, 5, 6), F-ordered
    g, b = rng.uniform(0.5, 1.5, 5), rng.standard_normal(5)
    y = F.batch_normalization(x, g, b).array
    want = F.batch_normalization(np.ascontiguousarray(x), g, b).array
    # The sums read memory in another order: the last bit may differ.
    np.testing.assert_allclose(y, want, rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize(
    "a,k,b,chunk,fused",
    [
        (16, 256, 3136, 1 << 17, True),
        (16, 64, 12544, 1 << 17, False),
        (3, 5, 7, 8, False),
        (3, 5, 7, 1000, True),
        (0, 4, 3, 8, True),
        (2, 3, 50, 8, False),
    ],
)
def test_grid_covers_each_element_once(a, k, b, chunk, fused):
    grid = bn_cpu.Grid(a, k, b, chunk)
    assert grid.fused is fused
    seen = np.zeros((a, k), int)
    for i in range(len(grid)):
        ai, (sa, sk), ks = grid[i]
        assert ks == sk and grid.a_blocks[ai] == (sa.start, sa.stop)
        seen[sa, sk] += 1
        # At most `chunk` elements, or one row of B when that is more.
        assert (sa.stop - sa.start) * (sk.stop - sk.start) * b <= max(chunk, b)
    assert (seen == 1).all()
    counts = grid.counts()
    assert counts.shape == (len(grid.a_blocks), 1) and counts.sum() == a * b


def test_run_chunks_runs_each_chunk_once_on_several_threads(monkeypatch):
    monkeypatch.setattr(threads, "_num_threads", 3)
    monkeypatch.setattr(threads, "MIN_BYTES_PER_THREAD", 1)
    done = []
    original = threads.parallel_for
    tasks = []
    monkeypatch.setattr(
        threads, "parallel_for", lambda fn, n: tasks.append(n) or original(fn, n)
    )
    bn_cpu.run_chunks(done.append, 50, 1 << 20)
    assert tasks == [3]
    assert sorted(done) == list(range(50))


def test_run_chunks_reraises(monkeypatch):
    monkeypatch.setattr(threads, "_num_threads", 2)
    monkeypatch.setattr(threads, "MIN_BYTES_PER_THREAD", 1)

    def fn(i):
        if i == 5:
            raise ValueError("chunk 5")

    with pytest.raises(ValueError, match="chunk 5"):
        bn_cpu.run_chunks(fn, 20, 1 << 20)


def test_small_inputs_are_not_split(monkeypatch):
    monkeypatch.setattr(threads, "_num_threads", 4)
    monkeypatch.setattr(
        threads, "parallel_for", lambda fn, n: pytest.fail("small input was split")
    )
    run((4, 6, 5, 3), np.float32, np.float32, None)


def test_scratch_is_reused(monkeypatch):
    monkeypatch.setattr(threads, "_num_threads", 1)
    x = np.random.default_rng(8).standard_normal((4, 6, 1000)).astype(np.float32)
    g, b = np.ones(6, np.float32), np.zeros(6, np.float32)
    F.batch_normalization(x, g, b)
    first = [buf.ctypes.data for buf in bn_cpu._local.buffers]
    F.batch_normalization(x * 2, g, b)
    assert [buf.ctypes.data for buf in bn_cpu._local.buffers] == first
