"""Tests of max_pooling_1d/2d/3d/nd and upsampling_2d against loop references."""

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


def maxpool_ref(x, ksize, stride=None, pad=0, cover_all=True, want_idx=False):
    nd = x.ndim - 2
    k = _tup(ksize, nd)
    s = k if stride is None else _tup(stride, nd)
    p = _tup(pad, nd)
    out = tuple(
        get_conv_outsize(n, kk, ss, pp, cover_all)
        for n, kk, ss, pp in zip(x.shape[2:], k, s, p)
    )
    y = np.empty(x.shape[:2] + out)
    idx = np.empty(x.shape[:2] + out, np.int32)
    for n, c in itertools.product(range(x.shape[0]), range(x.shape[1])):
        for pos in itertools.product(*[range(o) for o in out]):
            best, bi = -np.inf, 0
            for j, off in enumerate(itertools.product(*[range(kk) for kk in k])):
                q = tuple(pi * ss + oi - pp for pi, ss, oi, pp in zip(pos, s, off, p))
                if all(0 <= qi < ni for qi, ni in zip(q, x.shape[2:])):
                    v = x[(n, c) + q]
                    if v > best:
                        best, bi = v, j
            y[(n, c) + pos] = best
            idx[(n, c) + pos] = bi
    return (y, idx) if want_idx else y


def _distinct(shape):
    def gen(rng, dtype):
        size = int(np.prod(shape))
        vals = rng.permutation(size).astype(np.float64) / size * 2 - 1
        return vals.reshape(shape).astype(dtype)

    return gen


CASES = [
    ((2, 3, 5, 6), {"ksize": 2}),
    ((2, 3, 4, 6), {"ksize": 2}),  # windows tile the input exactly
    ((2, 2, 5, 6), {"ksize": 3, "stride": 2, "pad": 1}),
    ((1, 2, 7, 5), {"ksize": (3, 2), "stride": (2, 1), "cover_all": False}),
    ((1, 2, 7, 5), {"ksize": 3, "stride": 2, "cover_all": True}),
]


@pytest.mark.parametrize("shape,kw", CASES)
def test_max_pooling_2d(shape, kw, float_dtype, device):
    check_op(
        lambda x: F.max_pooling_2d(x, **kw),
        lambda x: maxpool_ref(x, **kw),
        [_distinct(shape)],
        dtype=float_dtype,
        device=device,
    )


@pytest.mark.parametrize(
    "shape,kw",
    [
        ((2, 3, 7), {"ksize": 3, "stride": 2, "pad": 1}),
        ((1, 2, 3, 4, 5), {"ksize": 2, "cover_all": False}),
        ((1, 2, 3, 4, 5), {"ksize": (2, 3, 2), "stride": 1, "pad": (1, 0, 1)}),
    ],
)
def test_max_pooling_nd(shape, kw, device):
    check_op(
        lambda x: F.max_pooling_nd(x, **kw),
        lambda x: maxpool_ref(x, **kw),
        [_distinct(shape)],
        dtype=np.float64,
        device=device,
    )
    f = F.max_pooling_1d if len(shape) == 3 else F.max_pooling_3d
    check_op(
        lambda x: f(x, **kw),
        lambda x: maxpool_ref(x, **kw),
        [_distinct(shape)],
        dtype=np.float32,
        device=device,
        backward=False,
    )


def test_max_pooling_return_indices():
    x = _distinct((2, 3, 7, 6))(np.random.default_rng(0), np.float32)
    y, idx = F.max_pooling_2d(x, 3, 2, 1, return_indices=True)
    ry, ridx = maxpool_ref(x.astype(np.float64), 3, 2, 1, want_idx=True)
    np.testing.assert_array_equal(y.array, ry.astype(np.float32))
    np.testing.assert_array_equal(idx, ridx)
    # indexes agree with the lazily computed ones of the backward
    xv = kusari.Variable(x)
    y2 = F.max_pooling_2d(xv, 3, 2, 1)
    np.testing.assert_array_equal(y2.creator.get_indexes(), ridx)


def upsample_ref(x, idx, ksize, stride=None, pad=0, outsize=None, cover_all=True):
    k = _tup(ksize, 2)
    s = k if stride is None else _tup(stride, 2)
    p = _tup(pad, 2)
    oh, ow = outsize
    y = np.zeros(x.shape[:2] + (oh + 2 * p[0] + k[0], ow + 2 * p[1] + k[1]))
    for n, c, i, j in itertools.product(*[range(v) for v in x.shape]):
        di, dj = divmod(int(idx[n, c, i, j]), k[1])
        y[n, c, i * s[0] + di, j * s[1] + dj] += x[n, c, i, j]
    return y[:, :, p[0] : p[0] + oh, p[1] : p[1] + ow]


@pytest.mark.parametrize(
    "insz,kw",
    [
        ((6, 5), {"ksize": 2}),
        ((7, 6), {"ksize": 3, "stride": 2, "pad": 1}),
    ],
)
def test_upsampling_2d(insz, kw, float_dtype, device):
    rng = np.random.default_rng(0)
    x0 = _distinct((2, 3) + insz)(rng, np.float64)
    _, idx = F.max_pooling_2d(x0, **kw, return_indices=True)
    check_op(
        lambda x: F.upsampling_2d(x, idx, outsize=insz, **kw),
        lambda x: upsample_ref(x, idx, outsize=insz, **kw),
        [idx.shape],
        dtype=float_dtype,
        device=device,
    )


def test_upsampling_2d_default_outsize():
    x = np.ones((1, 1, 2, 2), np.float32)
    idx = np.zeros((1, 1, 2, 2), np.int32)
    assert F.upsampling_2d(x, idx, 2, cover_all=False).shape == (1, 1, 4, 4)
    # Chainer's cover_all=True default infers s (n - 1) + k - s + 1
    assert F.upsampling_2d(x, idx, 2).shape == (1, 1, 3, 3)
    with pytest.raises(ValueError, match="upsampling_2d"):
        F.upsampling_2d(x, idx[:, :, :1], 2)


def test_max_pooling_errors():
    with pytest.raises(type_check.InvalidType, match="MaxPooling2D"):
        F.max_pooling_2d(np.zeros((1, 1, 4, 4), np.int32), 2)
    with pytest.raises(ValueError, match="max_pooling_2d"):
        F.max_pooling_2d(np.zeros((1, 4, 4), np.float32), 2)
    with pytest.raises(ValueError, match="max_pooling_2d"):
        F.max_pooling_2d(np.zeros((1, 1, 4, 4), np.float32), 0)
    with pytest.raises(ValueError, match="max_pooling_nd"):
        F.max_pooling_nd(np.zeros((1, 1, 4, 4), np.float32), (2, 2, 2))


def test_max_pooling_chunked_matches(monkeypatch):
    # Forces one sample per chunk in the cache-blocked kernels.
    from kusari.functions.pooling import _pool_core

    x = _distinct((3, 2, 7, 6))(np.random.default_rng(0), np.float64)
    gy = np.random.default_rng(1).standard_normal((3, 2, 4, 4))
    xv = kusari.Variable(x)
    y = F.max_pooling_2d(xv, 3, 2, 1)
    (gx_ref,) = kusari.grad([y], [xv], [kusari.Variable(gy)])
    monkeypatch.setattr(_pool_core, "_CHUNK_BYTES", 1)
    xv2 = kusari.Variable(x)
    y2 = F.max_pooling_2d(xv2, 3, 2, 1)
    (gx,) = kusari.grad([y2], [xv2], [kusari.Variable(gy)])
    np.testing.assert_array_equal(y2.array, maxpool_ref(x, 3, 2, 1))
    np.testing.assert_array_equal(gx.array, gx_ref.array)


def test_max_pooling_grad_inf_stays_local():
    x = kusari.Variable(np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4))
    y = F.max_pooling_2d(x, 2)
    gy = np.array([[[[np.inf, 1.0], [1.0, 1.0]]]], np.float32)
    (gx,) = kusari.grad([y], [x], [kusari.Variable(gy)])
    assert gx.array[0, 0, 1, 1] == np.inf
    assert not np.isnan(gx.array).any()
    assert gx.array.sum() == np.inf
