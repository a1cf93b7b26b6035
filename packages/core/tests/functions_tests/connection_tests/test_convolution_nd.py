"""Tests of convolution_nd / convolution_1d / convolution_2d / convolution_3d /
dilated_convolution_2d against a loop reference."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import get_conv_outsize, type_check


def _tup(v, n):
    return (v,) * n if isinstance(v, int) else tuple(v)


def conv_ref(x, W, b=None, stride=1, pad=0, cover_all=False, dilate=1, groups=1):
    """Direct N-d convolution with plain loops over output positions."""
    nd = x.ndim - 2
    s, p, d = _tup(stride, nd), _tup(pad, nd), _tup(dilate, nd)
    N, C = x.shape[:2]
    O = W.shape[0]
    k = W.shape[2:]
    out = tuple(
        get_conv_outsize(n, kk, ss, pp, cover_all, dd)
        for n, kk, ss, pp, dd in zip(x.shape[2:], k, s, p, d)
    )
    big = tuple(
        max(n + 2 * pp, (o - 1) * ss + (kk - 1) * dd + 1 + pp)
        for n, pp, o, ss, kk, dd in zip(x.shape[2:], p, out, s, k, d)
    )
    xp = np.zeros((N, C) + big)
    xp[
        (slice(None), slice(None))
        + tuple(slice(pp, pp + n) for pp, n in zip(p, x.shape[2:]))
    ] = x
    Cg, Og = C // groups, O // groups
    y = np.zeros((N, O) + out)
    for o in range(O):
        g = o // Og
        for pos in itertools.product(*[range(v) for v in out]):
            acc = np.zeros(N)
            for off in itertools.product(*[range(v) for v in k]):
                idx = tuple(pi * ss + oi * dd for pi, ss, oi, dd in zip(pos, s, off, d))
                patch = xp[(slice(None), slice(g * Cg, (g + 1) * Cg)) + idx]
                acc += patch @ W[(o, slice(None)) + off]
            y[(slice(None), o) + pos] = acc
    if b is not None:
        y += b.reshape((1, O) + (1,) * nd)
    return y


CASES_2D = [
    # x shape, W shape, kwargs
    ((2, 3, 5, 4), (2, 3, 3, 2), {}),
    ((2, 3, 5, 4), (2, 3, 3, 2), {"stride": 2, "pad": 1}),
    ((1, 2, 6, 5), (3, 2, 2, 3), {"stride": (2, 1), "pad": (0, 2), "cover_all": True}),
    ((1, 4, 6, 6), (4, 2, 2, 2), {"dilate": 2, "groups": 2}),
    ((2, 2, 3, 3), (3, 2, 1, 1), {}),
]


@pytest.mark.parametrize("xs,ws,kw", CASES_2D)
@pytest.mark.parametrize("nobias", [False, True])
def test_convolution_2d(xs, ws, kw, nobias, float_dtype, device):
    if nobias:
        check_op(
            lambda x, W: F.convolution_2d(x, W, **kw),
            lambda x, W: conv_ref(x, W, **kw),
            [xs, ws],
            dtype=float_dtype,
            device=device,
        )
    else:
        check_op(
            lambda x, W, b: F.convolution_2d(x, W, b, **kw),
            lambda x, W, b: conv_ref(x, W, b, **kw),
            [xs, ws, (ws[0],)],
            dtype=float_dtype,
            device=device,
        )


@pytest.mark.parametrize(
    "xs,ws,kw",
    [
        ((2, 3, 7), (4, 3, 3), {"stride": 2, "pad": 1}),
        ((1, 2, 6), (2, 1, 2), {"dilate": 2, "groups": 2, "cover_all": True}),
    ],
)
def test_convolution_1d(xs, ws, kw, float_dtype, device):
    check_op(
        lambda x, W, b: F.convolution_1d(x, W, b, **kw),
        lambda x, W, b: conv_ref(x, W, b, **kw),
        [xs, ws, (ws[0],)],
        dtype=float_dtype,
        device=device,
    )
    check_op(
        lambda x, W: F.convolution_nd(x, W, **kw),
        lambda x, W: conv_ref(x, W, **kw),
        [xs, ws],
        dtype=float_dtype,
        device=device,
        backward=False,
    )


@pytest.mark.parametrize(
    "kw", [{}, {"stride": (1, 2, 1), "pad": 1, "dilate": (1, 1, 2)}]
)
def test_convolution_3d(kw, device):
    check_op(
        lambda x, W, b: F.convolution_3d(x, W, b, **kw),
        lambda x, W, b: conv_ref(x, W, b, **kw),
        [(1, 2, 3, 4, 5), (2, 2, 2, 2, 2), (2,)],
        dtype=np.float64,
        device=device,
    )


# x and W of different float dtypes, as Chainer 7 accepts: y and b in x's
# dtype, gx in x's and gW in W's (check_op checks the gradient dtypes).
MIXED = [(np.float16, np.float32), (np.float32, np.float16), (np.float64, np.float32)]


@pytest.mark.parametrize("dx,dw", MIXED)
@pytest.mark.parametrize("xs,ws,kw", [CASES_2D[1], CASES_2D[3]])
def test_convolution_2d_mixed_dtypes(xs, ws, kw, dx, dw, device):
    check_op(
        lambda x, W, b: F.convolution_2d(x, W, b, **kw),
        lambda x, W, b: conv_ref(x, W, b, **kw),
        [xs, ws, (ws[0],)],
        input_dtypes=(dx, dw, dx),
        dtype=dx,
        device=device,
    )


@pytest.mark.parametrize("dx,dw", MIXED[:2])
def test_convolution_nd_mixed_dtypes(dx, dw, device):
    kw = {"stride": 2, "pad": 1}
    check_op(
        lambda x, W: F.convolution_nd(x, W, **kw),
        lambda x, W: conv_ref(x, W, **kw),
        [(2, 3, 7), (4, 3, 3)],
        input_dtypes=(dx, dw),
        dtype=dx,
        device=device,
    )
    check_op(
        lambda x, W: F.convolution_3d(x, W),
        lambda x, W: conv_ref(x, W),
        [(1, 2, 3, 3, 3), (2, 2, 2, 2, 2)],
        input_dtypes=(dx, dw),
        dtype=dx,
        device=device,
        double_backward=False,
    )


@pytest.mark.parametrize("dx,dw", [(np.float32, np.float64), (np.float16, np.float32)])
def test_convolution_mixed_computes_in_the_wider_dtype(dx, dw):
    # y = 1 * (1 + tiny) - 1 * 1 with W in the wider dtype: computed there (as
    # NumPy's promotion does in Chainer), tiny survives; W rounded to x's
    # dtype first would give 0.
    tiny = 1e-9 if dw == np.float64 else 4e-4
    x = np.ones((1, 2, 1, 1), dx)
    W = np.array([1 + tiny, -1], dw).reshape(1, 2, 1, 1)
    for y in (F.convolution_2d(x, W), F.deconvolution_2d(x, W.reshape(2, 1, 1, 1))):
        assert y.dtype == dx
        np.testing.assert_allclose(y.array.ravel(), [tiny], rtol=1e-2)


def test_dilated_convolution_2d(device):
    check_op(
        lambda x, W, b: F.dilated_convolution_2d(x, W, b, 1, 1, 2),
        lambda x, W, b: conv_ref(x, W, b, 1, 1, dilate=2),
        [(1, 2, 5, 5), (2, 2, 2, 2), (2,)],
        dtype=np.float64,
        device=device,
    )


def test_convolution_2d_large_matches_reference():
    # Several chunks of the column buffer.
    from kusari.functions.connection import _conv_common

    rng = np.random.default_rng(1)
    x = rng.standard_normal((5, 3, 9, 9))
    W = rng.standard_normal((4, 3, 3, 3))
    old = _conv_common._CHUNK_BYTES
    _conv_common._CHUNK_BYTES = 1
    try:
        y = F.convolution_2d(x, W, stride=2, pad=1).array
        gy = rng.standard_normal(y.shape)
        xv, Wv = kusari.Variable(x), kusari.Variable(W)
        yv = F.convolution_2d(xv, Wv, stride=2, pad=1)
        gx, gW = kusari.grad([yv], [xv, Wv], [kusari.Variable(gy)])
    finally:
        _conv_common._CHUNK_BYTES = old
    np.testing.assert_allclose(y, conv_ref(x, W, stride=2, pad=1), atol=1e-10)
    xv2, Wv2 = kusari.Variable(x), kusari.Variable(W)
    yv2 = F.convolution_2d(xv2, Wv2, stride=2, pad=1)
    gx2, gW2 = kusari.grad([yv2], [xv2, Wv2], [kusari.Variable(gy)])
    np.testing.assert_allclose(gx.array, gx2.array, atol=1e-10)
    np.testing.assert_allclose(gW.array, gW2.array, atol=1e-10)


def test_convolution_2d_shape_mismatch():
    x = np.zeros((1, 3, 5, 5), np.float32)
    W = np.zeros((2, 4, 3, 3), np.float32)
    with pytest.raises(type_check.InvalidType, match="Convolution2DFunction"):
        F.convolution_2d(x, W)


def test_convolution_nd_shape_mismatch():
    x = np.zeros((1, 3, 5), np.float32)
    W = np.zeros((2, 3, 3, 3), np.float32)
    with pytest.raises(type_check.InvalidType, match="ConvolutionND"):
        F.convolution_nd(x, W)


def test_convolution_2d_bad_groups_and_args():
    x = np.zeros((1, 4, 5, 5), np.float32)
    with pytest.raises(type_check.InvalidType):
        F.convolution_2d(x, np.zeros((3, 2, 3, 3), np.float32), groups=2)
    with pytest.raises(ValueError, match="convolution_2d"):
        F.convolution_2d(x, np.zeros((2, 4, 3, 3), np.float32), stride=0)
    with pytest.raises(ValueError, match="convolution_2d"):
        F.convolution_2d(x, np.zeros((2, 4, 7, 7), np.float32))
    with pytest.raises(ValueError, match="convolution_2d"):
        F.convolution_2d(x[0], np.zeros((2, 4, 3, 3), np.float32))
    # A W of another float dtype is accepted (mixed precision); a non-float
    # W, or a bias not in x's dtype, is not.
    with pytest.raises(type_check.InvalidType):
        F.convolution_2d(x, np.zeros((2, 4, 3, 3), np.int32))
    with pytest.raises(type_check.InvalidType):
        F.convolution_2d(x, np.zeros((2, 4, 3, 3), np.float32), np.zeros(2, np.float64))


@pytest.mark.parametrize("groups", [1, 2])
def test_per_sample_gemm_path(groups, monkeypatch):
    # Large output planes take a one-GEMM-per-sample path; force it here.
    from kusari.functions.connection import _conv_core

    rng = np.random.default_rng(2)
    x = rng.standard_normal((3, 4, 6, 5))
    W = rng.standard_normal((6, 4 // groups, 3, 2))
    kw = {"stride": (2, 1), "pad": 1, "groups": groups}
    ref = conv_ref(x, W, **kw)
    xv, Wv = kusari.Variable(x), kusari.Variable(W)
    y0 = F.convolution_2d(xv, Wv, **kw)
    gy = rng.standard_normal(y0.shape)
    g0 = kusari.grad([y0], [xv, Wv], [kusari.Variable(gy)])
    monkeypatch.setattr(_conv_core, "_LARGE_L", 1)
    xv1, Wv1 = kusari.Variable(x), kusari.Variable(W)
    y1 = F.convolution_2d(xv1, Wv1, **kw)
    g1 = kusari.grad([y1], [xv1, Wv1], [kusari.Variable(gy)])
    np.testing.assert_allclose(y1.array, ref, atol=1e-10)
    for a, b in zip(g0, g1):
        np.testing.assert_allclose(a.array, b.array, atol=1e-10)


def test_workspace_reuse_and_clear():
    from kusari.functions.connection import _conv_core

    x = np.random.default_rng(3).standard_normal((2, 2, 5, 5))
    W = np.random.default_rng(4).standard_normal((3, 2, 2, 2))
    y1 = F.convolution_2d(x, W).array.copy()
    y2 = F.convolution_2d(x, W).array  # reuses the cached column buffer
    np.testing.assert_array_equal(y1, y2)
    _conv_core.clear_workspace()
    np.testing.assert_array_equal(F.convolution_2d(x, W).array, y1)
