"""The fused 2-d convolution forward (``_conv_fused``): blocks of columns,
GEMM, bias and NCHW layout per thread.

Checked against a float64 NumPy reference and against the sample-major path
it replaces, for every stride, pad, dilation, group count, cover-all and
float dtype, with blocks of bands and of several samples, on one thread and
on three (results must not depend on the thread count)."""

from __future__ import annotations

import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari.functions.connection import (
    _conv_batch_inner,
    _conv_core,
    _conv_fused,
    _conv_s2d,
    _conv_sm_blocks,
)
from kusari.utils import get_conv_outsize, threads


def conv_ref64(x, W, b, stride, pad, dilate, groups, cover_all):
    """Convolution in float64, one einsum per kernel offset."""
    s, p, d = stride, pad, dilate
    N, C, H, Wd = x.shape
    O, Cg, kh, kw = W.shape
    out = [
        get_conv_outsize(n, k, ss, pp, cover_all, dd)
        for n, k, ss, pp, dd in zip((H, Wd), (kh, kw), s, p, d)
    ]
    big = [
        max(n + 2 * pp, (o - 1) * ss + (k - 1) * dd + 1 + pp)
        for n, pp, o, ss, k, dd in zip((H, Wd), p, out, s, (kh, kw), d)
    ]
    xp = np.zeros((N, C, *big))
    xp[:, :, p[0] : p[0] + H, p[1] : p[1] + Wd] = x
    y = np.zeros((N, O, *out))
    Og = O // groups
    for g in range(groups):
        xg = xp[:, g * Cg : (g + 1) * Cg]
        Wg = W[g * Og : (g + 1) * Og].astype(np.float64)
        for ky in range(kh):
            for kx in range(kw):
                a, c = ky * d[0], kx * d[1]
                win = xg[
                    :,
                    :,
                    a : a + s[0] * (out[0] - 1) + 1 : s[0],
                    c : c + s[1] * (out[1] - 1) + 1 : s[1],
                ]
                y[:, g * Og : (g + 1) * Og] += np.einsum(
                    "ncij,oc->noij", win, Wg[:, :, ky, kx]
                )
    if b is not None:
        y += b.astype(np.float64).reshape(1, O, 1, 1)
    return y, tuple(out)


# x shape, W shape, stride, pad, dilate, groups, cover_all
CASES = [
    ((3, 3, 13, 17), (4, 3, 3, 5), (1, 1), (0, 0), (1, 1), 1, False),
    ((1, 3, 30, 31), (5, 3, 11, 11), (4, 4), (2, 2), (1, 1), 1, False),
    ((5, 4, 15, 16), (6, 2, 3, 3), (2, 3), (1, 2), (1, 1), 2, False),
    ((4, 2, 20, 21), (3, 2, 3, 3), (2, 2), (1, 1), (2, 2), 1, False),
    ((5, 2, 20, 21), (3, 2, 4, 5), (3, 2), (0, 3), (1, 2), 1, True),
    ((7, 1, 28, 28), (20, 1, 5, 5), (1, 1), (0, 0), (1, 1), 1, False),
    ((3, 3, 40, 41), (8, 3, 7, 7), (2, 2), (3, 3), (1, 1), 1, True),
    ((2, 6, 19, 23), (6, 2, 2, 3), (1, 5), (0, 1), (1, 1), 3, True),
]
IDS = [
    "k3x5",
    "alex_like_s4",
    "groups_s2x3",
    "dilate2_s2",
    "cover_all_s3x2_dilate",
    "lenet1",
    "stem_s2_cover_all",
    "stride_w_gt_kernel",
]
TOL = {np.float16: 2e-2, np.float32: 1e-4, np.float64: 1e-10}


@pytest.fixture(autouse=True)
def _fused_everywhere(monkeypatch):
    # Every case takes the fused path (the sample-major layout, any plane).
    monkeypatch.setattr(_conv_batch_inner, "_FORCE_LAYOUT", "sample")
    # Neither the sample blocks nor the phase split take the cases first.
    monkeypatch.setattr(_conv_sm_blocks, "ENABLED", False)
    monkeypatch.setattr(_conv_s2d, "ENABLED", False)
    monkeypatch.setattr(_conv_fused, "_MIN_PLANE", 1)


def _forward(x, W, b, s, p, d, g, out):
    return _conv_core.conv_forward(x, W, b, s, p, d, g, out)


@pytest.mark.parametrize(
    "block_bytes", [1, 3000, 640 << 10], ids=["rows1", "bands", "samples"]
)
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_matches_reference_and_old_path(case, dtype, block_bytes, monkeypatch):
    xs, ws, s, p, d, g, cover_all = case
    monkeypatch.setattr(_conv_fused, "_BLOCK_BYTES", block_bytes)
    monkeypatch.setattr(_conv_fused, "_MIN_COLS", 1)
    rng = np.random.default_rng(0)
    x = rng.standard_normal(xs).astype(dtype)
    W = rng.standard_normal(ws).astype(dtype)
    b = rng.standard_normal(ws[0]).astype(dtype)
    ref, out = conv_ref64(x, W, b, s, p, d, g, cover_all)
    calls = []
    real = _conv_fused.conv_forward
    monkeypatch.setattr(
        _conv_fused, "conv_forward", lambda *a: calls.append(1) or real(*a)
    )
    y = _forward(x, W, b, s, p, d, g, out)
    assert calls, "the fused path was not taken"
    assert y.dtype == dtype and y.shape == ref.shape
    tol = TOL[dtype]
    scale = np.abs(ref).max()
    np.testing.assert_allclose(y.astype(np.float64), ref, rtol=tol, atol=tol * scale)
    monkeypatch.setattr(_conv_fused, "ENABLED", False)
    old = _forward(x, W, b, s, p, d, g, out)
    np.testing.assert_allclose(
        y.astype(np.float64), old.astype(np.float64), rtol=tol, atol=tol * scale
    )


@pytest.mark.parametrize("blocks", ["bands", "two_samples"])
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_thread_count_does_not_change_results(case, blocks, monkeypatch):
    xs, ws, s, p, d, g, cover_all = case
    rng = np.random.default_rng(1)
    x = rng.standard_normal(xs).astype(np.float32)
    W = rng.standard_normal(ws).astype(np.float32)
    b = rng.standard_normal(ws[0]).astype(np.float32)
    _, out = conv_ref64(x[:1], W, None, s, p, d, g, cover_all)
    per_col = xs[1] * ws[2] * ws[3] * 4
    block = 3000 if blocks == "bands" else 2 * out[0] * out[1] * per_col
    monkeypatch.setattr(_conv_fused, "_BLOCK_BYTES", block)
    monkeypatch.setattr(_conv_fused, "_MIN_COLS", 1)
    monkeypatch.setattr(threads, "_num_threads", 1)
    one = _forward(x, W, b, s, p, d, g, out)
    # Three threads on uneven pieces, however small the work.
    monkeypatch.setattr(threads, "_num_threads", 3)
    monkeypatch.setattr(threads, "MIN_BYTES_PER_THREAD", 1)
    split = []
    real = threads.run_split
    monkeypatch.setattr(
        threads, "run_split", lambda fn, n, nb: split.append(n) or real(fn, n, nb)
    )
    many = _forward(x, W, b, s, p, d, g, out)
    if blocks == "bands" or xs[0] > 2:
        assert split, "the blocks were not split over the threads"
    np.testing.assert_array_equal(one, many)


def test_blas_held_to_one_thread_while_split(monkeypatch, blas_holds):
    asked = blas_holds
    monkeypatch.setattr(_conv_fused, "_BLOCK_BYTES", 2000)
    monkeypatch.setattr(_conv_fused, "_MIN_COLS", 1)
    monkeypatch.setattr(threads, "_num_threads", 2)
    monkeypatch.setattr(threads, "MIN_BYTES_PER_THREAD", 1)
    x = np.ones((4, 2, 12, 12), np.float32)
    W = np.ones((3, 2, 3, 3), np.float32)
    y = _forward(x, W, None, (1, 1), (0, 0), (1, 1), 1, (10, 10))
    assert asked == [1]
    np.testing.assert_array_equal(y, np.full((4, 3, 10, 10), 18, np.float32))


def test_noncontiguous_input_and_no_padding(monkeypatch):
    # No pad and no cast: the columns are read from x itself, strides and all.
    monkeypatch.setattr(_conv_fused, "_BLOCK_BYTES", 2000)
    monkeypatch.setattr(_conv_fused, "_MIN_COLS", 1)
    rng = np.random.default_rng(2)
    big = rng.standard_normal((3, 8, 18, 20)).astype(np.float32)
    x = big[:, ::2, 1:, ::2]
    W = rng.standard_normal((5, 4, 3, 3)).astype(np.float32)
    ref, out = conv_ref64(x, W, None, (1, 1), (0, 0), (1, 1), 1, False)
    y = _forward(x, W, None, (1, 1), (0, 0), (1, 1), 1, out)
    np.testing.assert_allclose(y, ref, rtol=1e-4, atol=1e-4)


def test_public_function_forward_and_backward_unchanged(monkeypatch):
    # Through F.convolution_2d: the forward is fused, the gradients are the
    # old kernels', and both agree with the unfused run.
    rng = np.random.default_rng(3)
    x = rng.standard_normal((5, 3, 33, 34)).astype(np.float32)
    W = rng.standard_normal((4, 3, 5, 5)).astype(np.float32)
    b = rng.standard_normal(4).astype(np.float32)
    gy = None
    results = []
    for enabled in (True, False):
        monkeypatch.setattr(_conv_fused, "ENABLED", enabled)
        xv, Wv, bv = kusari.Variable(x), kusari.Variable(W), kusari.Variable(b)
        y = F.convolution_2d(xv, Wv, bv, stride=(3, 2), pad=(1, 2))
        if gy is None:
            gy = rng.standard_normal(y.shape).astype(np.float32)
        y.grad = gy
        y.backward()
        results.append([y.array, xv.grad, Wv.grad, bv.grad])
    for a, c in zip(*results):
        np.testing.assert_allclose(a, c, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize(
    "k, st, expect",
    [
        (11, 4, [(0, 3, 3), (3, 1, 2)]),
        (3, 2, [(0, 1, 2), (1, 1, 1)]),
        (4, 2, [(0, 2, 2)]),
        (2, 5, [(0, 2, 1)]),
        (5, 1, [(0, 1, 5)]),
    ],
)
def test_phase_parts_cover_each_offset_once(k, st, expect):
    parts = _conv_fused._phase_parts(k, st)
    assert parts == expect
    offsets = sorted(
        b + st * t for b0, nb, q in parts for b in range(b0, b0 + nb) for t in range(q)
    )
    assert offsets == list(range(k))


def test_small_planes_and_other_dims_keep_their_paths(monkeypatch):
    monkeypatch.setattr(_conv_fused, "_MIN_PLANE", 256)
    assert not _conv_fused.applicable(np, 2, (15, 15))
    assert _conv_fused.applicable(np, 2, (16, 16))
    assert not _conv_fused.applicable(np, 3, (16, 16, 16))
    assert not _conv_fused.applicable(object(), 2, (64, 64))


@pytest.mark.parametrize(
    "n, rows_k, out, expect",
    [
        # LeNet's first layer: 10 blocks of 10 samples (not 9 of 11 and 1)
        (100, 25, (24, 24), (10, 24)),
        # AlexNet conv1: bands of 10 rows of one sample (6 per sample)
        (64, 363, (55, 55), (1, 10)),
        # a sample's columns far below a block: the whole batch
        (3, 45, (11, 13), (3, 11)),
    ],
)
def test_plan_blocks(n, rows_k, out, expect):
    assert _conv_fused._plan(n, rows_k, 4, out) == expect
