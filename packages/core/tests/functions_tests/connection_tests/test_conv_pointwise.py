"""1x1 convolutions split over the intra-op threads (``_conv_pointwise``),
their GEMMs cut into blocks (``_conv_common.matmul_into``; the block rule
itself is tested with ``functions.math._gemm_split``).

Forward, input gradient and weight gradient are checked against a float64
NumPy reference (strides, groups, small and large planes, batch 1 and odd
batches, every float dtype, a non-contiguous ``gy``) and against the older
column loop; results must be bit for bit the same on one thread and on three.
"""

from __future__ import annotations

import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari.functions.connection import (
    _conv_common,
    _conv_core,
    _conv_pointwise,
)
from kusari.utils import threads


def _ref64(x, W, gy, s, groups):
    """(y, gx, gW) of a 1x1 convolution without pad, in float64."""
    x, W, gy = (a.astype(np.float64) for a in (x, W, gy))
    N, C, H, Wd = x.shape
    O = W.shape[0]
    Cg, Og = C // groups, O // groups
    xs = x[:, :, :: s[0], :: s[1]][:, :, : gy.shape[2], : gy.shape[3]]
    y = np.zeros(gy.shape)
    gx = np.zeros(x.shape)
    gW = np.zeros(W.shape)
    for g in range(groups):
        cs, os_ = slice(g * Cg, (g + 1) * Cg), slice(g * Og, (g + 1) * Og)
        w = W[os_, :, 0, 0]
        y[:, os_] = np.einsum("oc,nchw->nohw", w, xs[:, cs])
        gsub = np.einsum("oc,nohw->nchw", w, gy[:, os_])
        gx[:, cs, : s[0] * gy.shape[2] : s[0], : s[1] * gy.shape[3] : s[1]] = gsub
        gW[os_, :, 0, 0] = np.einsum("nohw,nchw->oc", gy[:, os_], xs[:, cs])
    return y, gx, gW


# x shape, out channels, stride, groups: small planes (7x7, under the per-
# sample GEMM's 49 pixels), strided projections, large planes, odd shapes.
CASES = [
    ((4, 16, 7, 7), 24, (1, 1), 1),
    ((5, 12, 9, 9), 8, (2, 2), 1),
    ((1, 8, 14, 14), 16, (2, 2), 2),
    ((3, 6, 16, 13), 9, (1, 1), 3),
    ((2, 10, 11, 12), 4, (3, 2), 2),
    ((3, 8, 20, 20), 12, (1, 1), 1),
]
TOL = {
    np.float16: {"atol": 5e-2, "rtol": 5e-2},
    np.float32: {"atol": 1e-4, "rtol": 1e-4},
    np.float64: {"atol": 1e-10, "rtol": 1e-10},
}


def _data(xs, O, s, groups, dtype, seed=0):
    rng = np.random.default_rng(seed)
    out = tuple((n - 1) // st + 1 for n, st in zip(xs[2:], s))
    x = rng.standard_normal(xs).astype(dtype)
    W = rng.standard_normal((O, xs[1] // groups, 1, 1)).astype(dtype)
    gy = rng.standard_normal((xs[0], O) + out).astype(dtype)
    return x, W, gy


def _run(x, W, gy, s, groups):
    xv, Wv = kusari.Variable(x), kusari.Variable(W)
    y = F.convolution_2d(xv, Wv, stride=s, groups=groups)
    y.grad = gy
    y.backward()
    return y.array, xv.grad, Wv.grad


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("case", CASES)
def test_matches_float64_reference(case, dtype, monkeypatch):
    xs, O, s, groups = case
    x, W, gy = _data(xs, O, s, groups, dtype)
    called = []
    for name in ("conv_forward", "deconv_forward", "conv_grad_weight"):
        real = getattr(_conv_pointwise, name)
        monkeypatch.setattr(
            _conv_pointwise,
            name,
            lambda *a, _r=real, _n=name: called.append(_n) or _r(*a),
        )
    got = _run(x, W, gy, s, groups)
    assert "conv_grad_weight" in called
    for a, b in zip(got, _ref64(x, W, gy, s, groups)):
        assert a.dtype == dtype
        np.testing.assert_allclose(a.astype(np.float64), b, **TOL[dtype])


@pytest.mark.parametrize("case", CASES)
def test_matches_column_loop(case, monkeypatch):
    xs, O, s, groups = case
    x, W, gy = _data(xs, O, s, groups, np.float64, seed=3)
    new = _run(x, W, gy, s, groups)
    monkeypatch.setattr(_conv_pointwise, "ENABLED", False)
    old = _run(x, W, gy, s, groups)
    for a, b in zip(new, old):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def test_non_contiguous_gy():
    x, W, gy = _data((3, 8, 7, 7), 12, (1, 1), 1, np.float32, seed=5)
    big = np.zeros((3, 24, 7, 9), np.float32)
    view = big[:, ::2, :, 1:8]
    view[...] = gy
    assert not view.flags.c_contiguous
    got = _run(x, W, view, (1, 1), 1)
    for a, b in zip(got, _ref64(x, W, gy, (1, 1), 1)):
        np.testing.assert_allclose(a, b, atol=1e-4, rtol=1e-4)


def test_deconvolution_strided_output_larger_than_windows():
    # outsize past the last window: those rows and columns stay zero.
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 6, 5, 4)).astype(np.float32)
    W = rng.standard_normal((6, 3, 1, 1)).astype(np.float32)
    y = F.deconvolution_2d(x, W, stride=2, outsize=(10, 8)).array
    ref = np.zeros((2, 3, 10, 8))
    ref[:, :, :9:2, :7:2] = np.einsum("co,nchw->nohw", W[:, :, 0, 0], x)
    np.testing.assert_allclose(y, ref, atol=1e-5, rtol=1e-5)


def test_applicable():
    np_ = np
    assert _conv_pointwise.applicable(np_, (1, 1), (0, 0), (7, 7), (4, 4), (2, 2))
    # Padding, a larger kernel, cover-all's window past the input: not here.
    assert not _conv_pointwise.applicable(np_, (1, 1), (1, 0), (7, 7), (9, 7), (1, 1))
    assert not _conv_pointwise.applicable(np_, (3, 3), (0, 0), (7, 7), (5, 5), (1, 1))
    assert not _conv_pointwise.applicable(np_, (1, 1), (0, 0), (6, 6), (4, 4), (2, 2))


def _split_everything(monkeypatch):
    monkeypatch.setattr(threads, "_num_threads", 3)
    monkeypatch.setattr(threads, "MIN_BYTES_PER_THREAD", 1)


@pytest.mark.parametrize(
    "case",
    CASES
    + [
        # Weight gradient by sample chunks (many pixels) and by tiles (few).
        ((6, 40, 16, 16), 48, (1, 1), 1),
        ((4, 800, 3, 3), 520, (1, 1), 1),
        ((3, 800, 6, 6), 300, (2, 2), 1),
    ],
)
def test_threads_match_one_thread(case, monkeypatch):
    xs, O, s, groups = case
    x, W, gy = _data(xs, O, s, groups, np.float32, seed=7)
    monkeypatch.setattr(threads, "_num_threads", 1)
    one = _run(x, W, gy, s, groups)
    _split_everything(monkeypatch)
    calls = []
    real = threads.run_split
    monkeypatch.setattr(
        threads,
        "run_split",
        lambda fn, n, nbytes: calls.append(n) or real(fn, n, nbytes),
    )
    many = _run(x, W, gy, s, groups)
    assert calls, "nothing was split"
    for a, b in zip(one, many):
        np.testing.assert_array_equal(a, b)


def test_grad_weight_takes_both_splits(monkeypatch):
    tiled = []
    real = _conv_common.matmul_into
    monkeypatch.setattr(
        _conv_pointwise,
        "matmul_into",
        lambda *a, **k: tiled.append(a[0].shape) or real(*a, **k),
    )
    x, W, gy = _data((6, 40, 16, 16), 48, (1, 1), 1, np.float32)
    _conv_core.conv_grad_weight(x, gy, W.shape, (1, 1), (0, 0), (1, 1), 1)
    assert not tiled  # 1536 pixels: four chunks of samples
    x, W, gy = _data((4, 800, 3, 3), 520, (1, 1), 1, np.float32)
    gW = _conv_core.conv_grad_weight(x, gy, W.shape, (1, 1), (0, 0), (1, 1), 1)
    assert tiled  # 36 pixels: the filter in tiles
    ref = _ref64(x, W, gy, (1, 1), 1)[2]
    np.testing.assert_allclose(gW, ref, atol=1e-3, rtol=1e-4)
