"""Tests of deconvolution_nd / _1d / _2d / _3d against a loop reference."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import kusari.functions as F
from kusari import Variable
from kusari.testing import check_op
from kusari.utils import get_deconv_outsize, type_check


def _tup(v, n):
    return (v,) * n if isinstance(v, int) else tuple(v)


def deconv_ref(x, W, b=None, stride=1, pad=0, outsize=None, dilate=1, groups=1):
    """Scatter every input pixel times the filter into the output, with loops."""
    nd = x.ndim - 2
    s, p, d = _tup(stride, nd), _tup(pad, nd), _tup(dilate, nd)
    N, Cin = x.shape[:2]
    k = W.shape[2:]
    Coutg = W.shape[1]
    Cing = Cin // groups
    if outsize is None:
        outsize = tuple(
            get_deconv_outsize(n, kk, ss, pp, d=dd)
            for n, kk, ss, pp, dd in zip(x.shape[2:], k, s, p, d)
        )
    outsize = _tup(outsize, nd)
    big = tuple(
        max(o + 2 * pp, (n - 1) * ss + (kk - 1) * dd + 1)
        for o, pp, n, ss, kk, dd in zip(outsize, p, x.shape[2:], s, k, d)
    )
    y = np.zeros((N, Coutg * groups) + big)
    for c in range(Cin):
        g = c // Cing
        for pos in itertools.product(*[range(v) for v in x.shape[2:]]):
            v = x[(slice(None), c) + pos]
            for off in itertools.product(*[range(kk) for kk in k]):
                idx = tuple(pi * ss + oi * dd for pi, ss, oi, dd in zip(pos, s, off, d))
                for co in range(Coutg):
                    y[(slice(None), g * Coutg + co) + idx] += v * W[(c, co) + off]
    y = y[
        (slice(None), slice(None))
        + tuple(slice(pp, pp + o) for pp, o in zip(p, outsize))
    ]
    if b is not None:
        y = y + b.reshape((1, -1) + (1,) * nd)
    return y


CASES_2D = [
    ((2, 3, 3, 2), (3, 2, 3, 2), {}),
    ((2, 3, 3, 2), (3, 2, 3, 3), {"stride": 2, "pad": 1}),
    ((1, 2, 3, 3), (2, 3, 2, 3), {"stride": (2, 3), "pad": (1, 0), "outsize": (5, 10)}),
    ((1, 4, 3, 3), (4, 1, 2, 2), {"dilate": 2, "groups": 2}),
    ((2, 2, 3, 3), (2, 3, 1, 1), {}),
]


@pytest.mark.parametrize("xs,ws,kw", CASES_2D)
@pytest.mark.parametrize("nobias", [False, True])
def test_deconvolution_2d(xs, ws, kw, nobias, float_dtype, device):
    groups = kw.get("groups", 1)
    if nobias:
        check_op(
            lambda x, W: F.deconvolution_2d(x, W, **kw),
            lambda x, W: deconv_ref(x, W, **kw),
            [xs, ws],
            dtype=float_dtype,
            device=device,
        )
    else:
        check_op(
            lambda x, W, b: F.deconvolution_2d(x, W, b, **kw),
            lambda x, W, b: deconv_ref(x, W, b, **kw),
            [xs, ws, (ws[1] * groups,)],
            dtype=float_dtype,
            device=device,
        )


@pytest.mark.parametrize(
    "xs,ws,kw",
    [
        ((2, 3, 4), (3, 2, 3), {"stride": 2, "pad": 1}),
        ((1, 2, 3), (2, 2, 2), {"dilate": 2, "groups": 2, "stride": 2, "outsize": 8}),
    ],
)
def test_deconvolution_1d(xs, ws, kw, float_dtype, device):
    check_op(
        lambda x, W: F.deconvolution_1d(x, W, **kw),
        lambda x, W: deconv_ref(x, W, **kw),
        [xs, ws],
        dtype=float_dtype,
        device=device,
    )
    check_op(
        lambda x, W: F.deconvolution_nd(x, W, **kw),
        lambda x, W: deconv_ref(x, W, **kw),
        [xs, ws],
        dtype=float_dtype,
        device=device,
        backward=False,
    )


def test_deconvolution_3d(device):
    kw = {"stride": (1, 2, 1), "pad": 1}
    check_op(
        lambda x, W, b: F.deconvolution_3d(x, W, b, **kw),
        lambda x, W, b: deconv_ref(x, W, b, **kw),
        [(1, 2, 2, 3, 2), (2, 2, 2, 2, 2), (2,)],
        dtype=np.float64,
        device=device,
    )


MIXED = [(np.float16, np.float32), (np.float32, np.float16), (np.float64, np.float32)]


@pytest.mark.parametrize("dx,dw", MIXED)
@pytest.mark.parametrize("xs,ws,kw", [CASES_2D[1], CASES_2D[3]])
def test_deconvolution_2d_mixed_dtypes(xs, ws, kw, dx, dw, device):
    # As Chainer 7: y and b in x's dtype, each gradient in its input's dtype.
    groups = kw.get("groups", 1)
    check_op(
        lambda x, W, b: F.deconvolution_2d(x, W, b, **kw),
        lambda x, W, b: deconv_ref(x, W, b, **kw),
        [xs, ws, (ws[1] * groups,)],
        input_dtypes=(dx, dw, dx),
        dtype=dx,
        device=device,
    )


def test_deconvolution_nd_mixed_dtypes(device):
    kw = {"stride": 2, "pad": 1}
    check_op(
        lambda x, W: F.deconvolution_nd(x, W, **kw),
        lambda x, W: deconv_ref(x, W, **kw),
        [(2, 3, 4), (3, 2, 3)],
        input_dtypes=(np.float16, np.float32),
        dtype=np.float16,
        device=device,
    )


def test_deconvolution_2d_mixed_bias_must_match_x():
    x = np.zeros((1, 3, 2, 2), np.float16)
    W = np.zeros((3, 2, 3, 3), np.float32)
    assert F.deconvolution_2d(x, W).dtype == np.float16
    with pytest.raises(type_check.InvalidType, match="b.dtype == x.dtype"):
        F.deconvolution_2d(x, W, np.zeros(2, np.float32))


def test_deconvolution_2d_shape_mismatch():
    x = np.zeros((1, 3, 5, 5), np.float32)
    W = np.zeros((4, 2, 3, 3), np.float32)
    with pytest.raises(type_check.InvalidType, match="Deconvolution2DFunction"):
        F.deconvolution_2d(x, W)


def test_deconvolution_2d_bad_outsize():
    x = np.zeros((1, 3, 5, 5), np.float32)
    W = np.zeros((3, 2, 3, 3), np.float32)
    with pytest.raises(type_check.InvalidType):
        F.deconvolution_2d(x, W, stride=2, outsize=(20, 20))
    with pytest.raises(ValueError, match="deconvolution_2d"):
        F.deconvolution_2d(x, W, pad=-1)


@pytest.mark.parametrize(
    "fn,w_shape,x_shape",
    [
        (F.convolution_nd, (2, 3, 3), (2, 3, 5)),
        (F.convolution_nd, (2, 3, 2, 2), (2, 3, 4, 3)),
        (F.deconvolution_nd, (3, 2, 3), (2, 3, 4)),
        (F.deconvolution_nd, (3, 2, 2, 2), (2, 3, 3, 2)),
    ],
)
@pytest.mark.parametrize("db", [np.float16, np.float64])
def test_nd_bias_in_its_own_dtype(fn, w_shape, x_shape, db):
    # Chainer 7's N-d (not 2-d) functions take a float bias of any dtype,
    # even with two spatial axes: y stays in x's dtype and gb comes back in
    # b's, equal to gy summed over the batch and spatial axes.
    rng = np.random.default_rng(0)
    x = Variable(rng.uniform(-1, 1, x_shape).astype(np.float32))
    W = Variable(rng.uniform(-1, 1, w_shape).astype(np.float32))
    b = Variable(rng.uniform(-1, 1, w_shape[0 if fn is F.convolution_nd else 1]))
    b.array = b.array.astype(db)
    y = fn(x, W, b)
    ref = fn(x.array, W.array, b.array.astype(np.float32))
    assert y.dtype == np.float32
    np.testing.assert_allclose(y.array, ref.array, rtol=2e-3, atol=2e-3)
    gy = rng.uniform(-1, 1, y.shape).astype(np.float32)
    y.grad = gy
    y.backward()
    assert b.grad.dtype == db
    axes = (0,) + tuple(range(2, y.ndim))
    np.testing.assert_allclose(b.grad, gy.sum(axis=axes), rtol=2e-3, atol=2e-3)


def test_2d_functions_still_need_bias_in_x_dtype():
    x = np.zeros((1, 3, 4, 4), np.float32)
    b = np.zeros(2, np.float64)
    with pytest.raises(type_check.InvalidType, match="b.dtype == x.dtype"):
        F.convolution_2d(x, np.zeros((2, 3, 3, 3), np.float32), b)
    with pytest.raises(type_check.InvalidType, match="b.dtype == x.dtype"):
        F.deconvolution_2d(x, np.zeros((3, 2, 3, 3), np.float32), b)
    with pytest.raises(type_check.InvalidType, match="b.dtype.kind == 'f'"):
        F.convolution_nd(x, np.zeros((2, 3, 3, 3), np.float32), b.astype(np.int32))


def test_non_positive_output_size_is_an_assertion_error_too():
    # Chainer 7 asserts here; kusari's error is both a ValueError naming the
    # function and an AssertionError.
    x = np.zeros((2, 3, 4), np.float32)
    W = np.zeros((3, 2, 2), np.float32)
    for exc in (AssertionError, ValueError):
        with pytest.raises(exc, match="deconvolution_nd: the output size"):
            F.deconvolution_nd(x, W, stride=1, pad=10)
        with pytest.raises(exc, match="convolution_nd: the output size"):
            F.convolution_nd(x, np.zeros((2, 3, 7), np.float32))
