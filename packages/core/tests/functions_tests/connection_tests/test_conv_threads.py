"""The convolution kernels split over the intra-op threads give exactly the
single-thread results (both column layouts, forward and both gradients)."""

from __future__ import annotations

import numpy as np
import pytest
from test_conv_layouts import CASES, _grads

from kusari.functions.connection import _conv_batch_inner, _conv_core
from kusari.utils import threads


@pytest.mark.parametrize("layout", ["sample", "batch"])
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_threads_match_one_thread(case, layout, monkeypatch):
    _, fn, xs, ws, nb = case
    rng = np.random.default_rng(0)
    arrays = [
        rng.standard_normal(xs).astype(np.float32),
        rng.standard_normal(ws).astype(np.float32),
        rng.standard_normal(nb).astype(np.float32),
    ]
    monkeypatch.setattr(_conv_batch_inner, "_FORCE_LAYOUT", layout)
    monkeypatch.setattr(threads, "_num_threads", 1)
    one = _grads(fn, arrays)
    # Every copy split, however small: three threads on uneven pieces.
    monkeypatch.setattr(threads, "_num_threads", 3)
    monkeypatch.setattr(threads, "MIN_BYTES_PER_THREAD", 1)
    calls = []
    real = threads.run_split
    monkeypatch.setattr(
        threads,
        "run_split",
        lambda fn, n, nbytes: calls.append(n) or real(fn, n, nbytes),
    )
    many = _grads(fn, arrays)
    assert calls, "no kernel was split"
    for a, b in zip(one, many):
        np.testing.assert_array_equal(a, b)


def test_per_sample_col2im_split(monkeypatch):
    # Large input planes take the one-GEMM-per-sample transposed convolution.
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 3, 70, 70)).astype(np.float32)
    W = rng.standard_normal((3, 4, 3, 3)).astype(np.float32)
    args = ((2, 2), (1, 1), (1, 1), 1, (139, 139))
    monkeypatch.setattr(threads, "_num_threads", 1)
    one = _conv_core.deconv_forward(x, W, None, *args)
    monkeypatch.setattr(threads, "_num_threads", 2)
    monkeypatch.setattr(threads, "MIN_BYTES_PER_THREAD", 1)
    np.testing.assert_array_equal(one, _conv_core.deconv_forward(x, W, None, *args))


@pytest.mark.parametrize("groups", [1, 2])
@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_pointwise_plain_gemm_matches_columns(groups, dtype, monkeypatch):
    import kusari.functions as F

    rng = np.random.default_rng(2)
    arrays = [
        rng.standard_normal((3, 4, 12, 12)).astype(dtype),
        rng.standard_normal((6, 4 // groups, 1, 1)).astype(dtype),
        rng.standard_normal(6).astype(dtype),
    ]

    def fn(x, W, b):
        return F.convolution_2d(x, W, b, groups=groups)

    gemm = _grads(fn, arrays)  # 144 pixels: the plain GEMM
    monkeypatch.setattr(_conv_core, "_POINTWISE_GEMM_L", 10**9)
    cols = _grads(fn, arrays)
    for a, b in zip(gemm, cols):
        tol = 1e-2 if dtype == np.float16 else 1e-5
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


@pytest.mark.parametrize("groups", [1, 2])
def test_pointwise_gemm_split_by_sample(groups, monkeypatch, blas_holds):
    # 1x1 convolutions on planes of 128+ pixels: one GEMM per sample, the
    # samples split over the pool (BLAS on one thread), forward and the
    # transposed convolution (the input gradient).
    import kusari.functions as F

    rng = np.random.default_rng(3)
    arrays = [
        rng.standard_normal((5, 4, 12, 12)).astype(np.float32),
        rng.standard_normal((6, 4 // groups, 1, 1)).astype(np.float32),
        rng.standard_normal(6).astype(np.float32),
    ]

    def fn(x, W, b):
        return F.convolution_2d(x, W, b, groups=groups)

    monkeypatch.setattr(threads, "_num_threads", 1)
    one = _grads(fn, arrays)
    monkeypatch.setattr(threads, "_num_threads", 3)
    monkeypatch.setattr(threads, "MIN_BYTES_PER_THREAD", 1)
    blas_holds.clear()  # count only the threaded run
    limited = blas_holds
    many = _grads(fn, arrays)
    # forward and input gradient (the weight gradient is not this GEMM)
    assert limited.count(1) >= 2
    for a, b in zip(one, many):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("layout", ["sample_major", "batch_inner"])
def test_col2im_makes_one_range_per_thread(layout, monkeypatch):
    # col2im runs a Python loop (one add per kernel offset) on each piece;
    # extra ranges per thread only add GIL turns, so it makes one per thread.
    monkeypatch.setattr(threads, "_num_threads", 3)
    monkeypatch.setattr(threads, "MIN_BYTES_PER_THREAD", 1)
    pieces = []
    real = threads.parallel_for
    monkeypatch.setattr(
        threads, "parallel_for", lambda f, n: pieces.append(n) or real(f, n)
    )
    rng = np.random.default_rng(0)
    # Big enough that the pool would otherwise cut 4 ranges per thread.
    k, s, d, insz = (3, 3), (1, 1), (1, 1), (16, 16)
    if layout == "sample_major":
        col = rng.standard_normal((16, 8) + k + insz).astype(np.float32)
        out = np.zeros((16, 8, 18, 18), np.float32)
        _conv_core.col2im_add(col, out, k, s, d, insz)
        ref = np.zeros_like(out)
        _conv_core._col2im_add_serial(col, ref, k, s, d, insz)
    else:
        col = rng.standard_normal((16,) + k + insz + (4,)).astype(np.float32)
        out = np.zeros((16, 18, 18, 4), np.float32)
        _conv_batch_inner._col2im_add_bi(col, out, k, s, d, insz, 0)
        ref = np.zeros_like(out)
        _conv_batch_inner._col2im_add_bi_serial(col, ref, k, s, d, insz, 0)
    assert pieces == [3]
    np.testing.assert_array_equal(out, ref)
