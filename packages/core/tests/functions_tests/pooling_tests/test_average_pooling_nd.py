"""Tests of average_pooling_1d/2d/3d/nd, unpooling_1d/2d/3d/nd and
spatial_pyramid_pooling_2d against loop references."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import kusari.functions as F
from kusari import Variable
from kusari.testing import check_op
from kusari.utils import get_conv_outsize, get_deconv_outsize, type_check


def _tup(v, n):
    return (v,) * n if isinstance(v, int) else tuple(v)


def avgpool_ref(x, ksize, stride=None, pad=0, pad_value=0):
    nd = x.ndim - 2
    k = _tup(ksize, nd)
    s = k if stride is None else _tup(stride, nd)
    p = _tup(pad, nd)
    out = tuple(
        get_conv_outsize(n, kk, ss, pp) for n, kk, ss, pp in zip(x.shape[2:], k, s, p)
    )
    y = np.zeros(x.shape[:2] + out)
    for pos in itertools.product(*[range(o) for o in out]):
        acc = np.zeros(x.shape[:2])
        cnt = 0
        for off in itertools.product(*[range(kk) for kk in k]):
            q = tuple(pi * ss + oi - pp for pi, ss, oi, pp in zip(pos, s, off, p))
            if all(0 <= qi < ni for qi, ni in zip(q, x.shape[2:])):
                acc += x[(slice(None), slice(None)) + q]
                cnt += 1
        y[(slice(None), slice(None)) + pos] = acc / (
            cnt if pad_value is None else int(np.prod(k))
        )
    return y


@pytest.mark.parametrize(
    "shape,kw",
    [
        ((2, 3, 5, 6), {"ksize": 2}),
        ((2, 2, 5, 6), {"ksize": 3, "stride": 2, "pad": 1}),
        ((1, 2, 7, 5), {"ksize": (3, 2), "stride": (2, 1), "pad": (1, 0)}),
        # global window (one reduction), disjoint windows with gaps, stride 1
        ((2, 3, 7, 7), {"ksize": 7}),
        ((2, 3, 7, 8), {"ksize": 2, "stride": 3}),
        ((2, 3, 6, 7), {"ksize": 3, "stride": 1, "pad": 1}),
    ],
)
def test_average_pooling_2d(shape, kw, float_dtype, device):
    check_op(
        lambda x: F.average_pooling_2d(x, **kw),
        lambda x: avgpool_ref(x, **kw),
        [shape],
        dtype=float_dtype,
        device=device,
    )


@pytest.mark.parametrize(
    "shape,kw",
    [
        ((2, 3, 7), {"ksize": 3, "stride": 2, "pad": 1}),
        ((2, 3, 7), {"ksize": 3, "stride": 2, "pad": 1, "pad_value": None}),
        ((1, 2, 3, 4, 5), {"ksize": 2, "pad": 1, "pad_value": None}),
        ((1, 2, 3, 4, 5), {"ksize": (2, 3, 2), "stride": 1}),
    ],
)
def test_average_pooling_nd(shape, kw, float_dtype, device):
    check_op(
        lambda x: F.average_pooling_nd(x, **kw),
        lambda x: avgpool_ref(x, **kw),
        [shape],
        dtype=float_dtype,
        device=device,
    )
    f = F.average_pooling_1d if len(shape) == 3 else F.average_pooling_3d
    check_op(
        lambda x: f(x, **kw),
        lambda x: avgpool_ref(x, **kw),
        [shape],
        dtype=float_dtype,
        device=device,
        backward=False,
    )


@pytest.mark.parametrize("pad_value", [0, None])
def test_average_pooling_blocked_matches(monkeypatch, pad_value):
    # one plane per block in the phase-split kernels and their adjoint
    from kusari import Variable, grad
    from kusari.functions.pooling import _pool_layout

    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 9, 8))
    gy = rng.standard_normal((2, 3, 5, 4))

    def run():
        xv = Variable(x)
        y = F.average_pooling_nd(xv, 3, 2, 1, pad_value=pad_value)
        (gx,) = grad([y], [xv], [Variable(gy)])
        return y.array, gx.array

    y_ref, gx_ref = run()
    monkeypatch.setattr(_pool_layout, "_CHUNK_BYTES", 1)
    y, gx = run()
    np.testing.assert_allclose(y, avgpool_ref(x, 3, 2, 1, pad_value))
    np.testing.assert_allclose(y, y_ref)
    np.testing.assert_allclose(gx, gx_ref)


def test_average_pooling_errors():
    with pytest.raises(ValueError, match="average_pooling_nd"):
        F.average_pooling_nd(np.zeros((1, 1, 4), np.float32), 2, pad_value=1)
    with pytest.raises(type_check.InvalidType, match="AveragePooling2D"):
        F.average_pooling_2d(np.zeros((1, 1, 4, 4), np.int32), 2)
    with pytest.raises(ValueError, match="average_pooling_2d"):
        F.average_pooling_2d(np.zeros((1, 4, 4), np.float32), 2)


def unpool_ref(x, ksize, stride=None, pad=0, outsize=None, cover_all=True):
    nd = x.ndim - 2
    k = _tup(ksize, nd)
    s = k if stride is None else _tup(stride, nd)
    p = _tup(pad, nd)
    if outsize is None:
        outsize = tuple(
            get_deconv_outsize(n, kk, ss, pp, cover_all)
            for n, kk, ss, pp in zip(x.shape[2:], k, s, p)
        )
    outsize = _tup(outsize, nd)
    y = np.zeros(x.shape[:2] + outsize)
    for pos in itertools.product(*[range(v) for v in x.shape[2:]]):
        for off in itertools.product(*[range(kk) for kk in k]):
            q = tuple(pi * ss + oi - pp for pi, ss, oi, pp in zip(pos, s, off, p))
            if all(0 <= qi < ni for qi, ni in zip(q, outsize)):
                y[(slice(None), slice(None)) + q] += x[(slice(None), slice(None)) + pos]
    return y


@pytest.mark.parametrize(
    "shape,kw",
    [
        ((2, 3, 3, 2), {"ksize": 2}),
        ((2, 3, 3, 2), {"ksize": 2, "cover_all": False}),
        ((1, 2, 3, 3), {"ksize": 3, "stride": 2, "pad": 1}),
        ((1, 2, 3, 3), {"ksize": (3, 2), "stride": (2, 1), "outsize": (6, 4)}),
        ((2, 3, 3, 2), {"ksize": 2, "stride": 3, "cover_all": False}),
        ((2, 3, 1, 1), {"ksize": 5, "cover_all": False}),
    ],
)
def test_unpooling_2d(shape, kw, float_dtype, device):
    check_op(
        lambda x: F.unpooling_2d(x, **kw),
        lambda x: unpool_ref(x, **kw),
        [shape],
        dtype=float_dtype,
        device=device,
    )


@pytest.mark.parametrize(
    "shape,kw",
    [
        ((2, 3, 4), {"ksize": 3, "stride": 2, "pad": 1}),
        ((1, 2, 2, 3, 2), {"ksize": 2, "cover_all": False}),
    ],
)
def test_unpooling_nd(shape, kw, device):
    check_op(
        lambda x: F.unpooling_nd(x, **kw),
        lambda x: unpool_ref(x, **kw),
        [shape],
        dtype=np.float64,
        device=device,
    )
    f = F.unpooling_1d if len(shape) == 3 else F.unpooling_3d
    check_op(
        lambda x: f(x, **kw),
        lambda x: unpool_ref(x, **kw),
        [shape],
        dtype=np.float32,
        device=device,
        backward=False,
    )


def test_unpooling_bad_outsize():
    with pytest.raises(ValueError, match="unpooling_2d"):
        F.unpooling_2d(np.zeros((1, 1, 3, 3), np.float32), 2, outsize=(20, 20))


@pytest.mark.parametrize("cover_all", [True, False])
def test_unpooling_outsize_must_fit_exactly(cover_all):
    # ksize 3, stride 2 on an output of 10: the pooling gives 5 with
    # cover_all and 4 without; only that size is accepted, as in Chainer 7,
    # and the error is an InvalidType (and a ValueError).
    fit = 5 if cover_all else 4
    x = np.ones((1, 1, fit), np.float32)
    y = F.unpooling_1d(x, 3, 2, outsize=(10,), cover_all=cover_all)
    assert y.shape == (1, 1, 10)
    other = np.ones((1, 1, 9 - fit), np.float32)  # the other setting's size
    for bad in (other, np.ones((1, 1, fit + 1), np.float32)):
        with pytest.raises(type_check.InvalidType, match="unpooling_1d"):
            F.unpooling_1d(bad, 3, 2, outsize=(10,), cover_all=cover_all)
        with pytest.raises(ValueError, match=r"needs an input of spatial size"):
            F.unpooling_1d(bad, 3, 2, outsize=(10,), cover_all=cover_all)


def test_unpooling_empty_output_as_chainer():
    # ksize 1, pad 1 on a width of 2 leaves nothing: an empty output (as in
    # Chainer 7) whose gradient is zeros, not an error.
    x = Variable(np.ones((2, 3, 3, 2), np.float32))
    y = F.unpooling_2d(x, 1, 1, 1, cover_all=False)
    assert y.shape == (2, 3, 1, 0)
    y.grad = np.zeros(y.shape, np.float32)
    y.backward()
    assert x.grad.shape == x.shape and not x.grad.any()


def spp_ref(x, height):
    n, c, h, w = x.shape
    out = []
    for level in range(height):
        bins = 2**level
        kh, kw = math.ceil(h / bins), math.ceil(w / bins)
        ph, pw = (kh * bins - h) // 2, (kw * bins - w) // 2
        oh = get_conv_outsize(h, kh, kh, ph, True)
        ow = get_conv_outsize(w, kw, kw, pw, True)
        y = np.full((n, c, oh, ow), -np.inf)
        for i, j in itertools.product(range(oh), range(ow)):
            hs, ws = max(i * kh - ph, 0), max(j * kw - pw, 0)
            he, we = min(i * kh - ph + kh, h), min(j * kw - pw + kw, w)
            y[:, :, i, j] = x[:, :, hs:he, ws:we].max(axis=(2, 3))
        out.append(y.reshape(n, -1, 1, 1))
    return np.concatenate(out, axis=1)


@pytest.mark.parametrize("shape", [(2, 3, 8, 8), (1, 2, 7, 6)])
def test_spatial_pyramid_pooling_2d(shape, device):
    def gen(rng, dtype):
        size = int(np.prod(shape))
        return (rng.permutation(size) / size * 2 - 1).reshape(shape).astype(dtype)

    check_op(
        lambda x: F.spatial_pyramid_pooling_2d(x, 3, pooling="max"),
        lambda x: spp_ref(x, 3),
        [gen],
        dtype=np.float64,
        device=device,
    )


def test_spatial_pyramid_pooling_2d_errors():
    x = np.zeros((1, 1, 4, 4), np.float32)
    with pytest.raises(ValueError, match="spatial_pyramid_pooling_2d"):
        F.spatial_pyramid_pooling_2d(x, 2, pooling="average")
    with pytest.raises(ValueError, match="spatial_pyramid_pooling_2d"):
        F.spatial_pyramid_pooling_2d(x, 0, pooling="max")
    # Chainer 7 has no default pooling: leaving it out is an error.
    with pytest.raises(ValueError, match="pooling must be given"):
        F.spatial_pyramid_pooling_2d(x, 2)
