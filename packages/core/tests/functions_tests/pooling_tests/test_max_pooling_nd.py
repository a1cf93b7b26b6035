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


# Each layout of the kernels: windows tiling x (global: one reduction),
# disjoint windows read in place (with gaps when stride > ksize), overlapping
# windows split into stride phases (stride 1: a single phase).
LAYOUT_CASES = [
    ((2, 3, 6, 6), {"ksize": 6}),
    ((2, 3, 6, 4), {"ksize": (6, 4), "stride": 1}),
    ((2, 3, 7, 8), {"ksize": 2, "stride": 3}),
    ((2, 3, 6, 7), {"ksize": 3, "stride": 1, "pad": 1}),
    ((2, 3, 9, 8), {"ksize": (3, 2), "stride": (2, 3), "pad": (1, 0)}),
]


@pytest.mark.parametrize("shape,kw", CASES + LAYOUT_CASES)
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
    from kusari.functions.pooling import _pool_layout

    x = _distinct((3, 2, 7, 6))(np.random.default_rng(0), np.float64)
    gy = np.random.default_rng(1).standard_normal((3, 2, 4, 4))
    xv = kusari.Variable(x)
    y = F.max_pooling_2d(xv, 3, 2, 1)
    (gx_ref,) = kusari.grad([y], [xv], [kusari.Variable(gy)])
    monkeypatch.setattr(_pool_layout, "_CHUNK_BYTES", 1)
    xv2 = kusari.Variable(x)
    y2 = F.max_pooling_2d(xv2, 3, 2, 1)
    (gx,) = kusari.grad([y2], [xv2], [kusari.Variable(gy)])
    np.testing.assert_array_equal(y2.array, maxpool_ref(x, 3, 2, 1))
    np.testing.assert_array_equal(gx.array, gx_ref.array)


@pytest.mark.parametrize("ksize,stride", [(2, None), (4, None), (3, 1)])
def test_max_pooling_grad_inf_stays_local(ksize, stride):
    x = kusari.Variable(np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4))
    y = F.max_pooling_2d(x, ksize, stride, cover_all=False)
    gy = np.ones(y.shape, np.float32)
    gy[0, 0, 0, 0] = np.inf
    (gx,) = kusari.grad([y], [x], [kusari.Variable(gy)])
    # the first window's maximum is its bottom-right element
    assert gx.array[0, 0, ksize - 1, ksize - 1] == np.inf
    assert not np.isnan(gx.array).any()
    assert np.isinf(gx.array).sum() == 1


def grad_ref(x, idx, gy, ksize, stride=None, pad=0):
    """Gradient of max pooling given the reference argmax ``idx``."""
    nd = x.ndim - 2
    k = _tup(ksize, nd)
    s = k if stride is None else _tup(stride, nd)
    p = _tup(pad, nd)
    offs = list(itertools.product(*[range(kk) for kk in k]))
    gx = np.zeros(x.shape)
    for n, c in itertools.product(range(x.shape[0]), range(x.shape[1])):
        for pos in itertools.product(*[range(o) for o in gy.shape[2:]]):
            off = offs[idx[(n, c) + pos]]
            q = tuple(pi * ss + oi - pp for pi, ss, oi, pp in zip(pos, s, off, p))
            if all(0 <= qi < ni for qi, ni in zip(q, x.shape[2:])):
                gx[(n, c) + q] += gy[(n, c) + pos]
    return gx


@pytest.mark.parametrize("blocked", [False, True])
def test_max_pooling_random_configs(monkeypatch, blocked):
    from kusari.functions.pooling import _pool_layout

    if blocked:  # one plane per block; phase split even for disjoint windows
        monkeypatch.setattr(_pool_layout, "_CHUNK_BYTES", 1)
        monkeypatch.setattr(_pool_layout, "_SPLIT_ARGMAX_BYTES", 0)
    rng = np.random.default_rng(int(blocked))
    checked = 0
    while checked < 40:
        nd = int(rng.integers(1, 4))
        k = tuple(int(v) for v in rng.integers(1, 5, nd))
        s = tuple(int(v) for v in rng.integers(1, 5, nd))
        p = tuple(int(rng.integers(0, kk)) for kk in k)
        cover_all = bool(rng.integers(0, 2))
        insz = tuple(int(v) for v in rng.integers(1, 10, nd))
        if any(
            get_conv_outsize(n, kk, ss, pp, cover_all) <= 0
            for n, kk, ss, pp in zip(insz, k, s, p)
        ):
            continue
        x = _distinct((2, 2) + insz)(rng, np.float64)
        kw = {"ksize": k, "stride": s, "pad": p, "cover_all": cover_all}
        xv = kusari.Variable(x)
        y, idx = F.max_pooling_nd(xv, **kw, return_indices=True)
        ry, ridx = maxpool_ref(x, **kw, want_idx=True)
        np.testing.assert_array_equal(y.array, ry, err_msg=str(kw))
        np.testing.assert_array_equal(idx, ridx, err_msg=str(kw))
        gy = rng.standard_normal(y.shape)
        (gx,) = kusari.grad([y], [xv], [kusari.Variable(gy)])
        np.testing.assert_allclose(
            gx.array, grad_ref(x, ridx, gy, k, s, p), err_msg=str(kw)
        )
        checked += 1


def test_max_pooling_ties_pick_the_first():
    # all equal: every window's argmax is its first element, and overlapping
    # windows add up there
    xv = kusari.Variable(np.zeros((1, 2, 5, 5)))
    y, idx = F.max_pooling_2d(xv, 3, 2, return_indices=True)
    assert not idx.any()
    gy = np.random.default_rng(0).standard_normal(y.shape)
    (gx,) = kusari.grad([y], [xv], [kusari.Variable(gy)])
    np.testing.assert_allclose(gx.array, grad_ref(xv.array, idx, gy, 3, 2))


def test_max_pooling_large_window():
    # more than 256 elements per window: the argmax no longer fits a byte
    x = _distinct((1, 2, 9, 8, 7))(np.random.default_rng(0), np.float64)
    kw = {"ksize": 7, "stride": (2, 3, 1), "pad": (3, 0, 1)}
    xv = kusari.Variable(x)
    y, idx = F.max_pooling_3d(xv, **kw, return_indices=True)
    ry, ridx = maxpool_ref(x, **kw, want_idx=True)
    np.testing.assert_array_equal(y.array, ry)
    np.testing.assert_array_equal(idx, ridx)
    gy = np.random.default_rng(1).standard_normal(y.shape)
    (gx,) = kusari.grad([y], [xv], [kusari.Variable(gy)])
    np.testing.assert_allclose(gx.array, grad_ref(x, ridx, gy, **kw))


def test_max_pooling_keeps_only_the_argmax():
    x = _distinct((2, 3, 7, 6))(np.random.default_rng(0), np.float32)
    y = F.max_pooling_2d(kusari.Variable(x), 3, 2)
    node = y.creator
    assert node.indexes.dtype == np.uint8
    assert node.inputs[0].data is None  # x is not retained
    # no argmax where no backward can follow
    from kusari.functions.pooling.max_pooling_2d import MaxPooling2D

    p = MaxPooling2D(3, 2)
    with kusari.no_backprop_mode():
        p.apply((kusari.Variable(x),))
    assert p.indexes is None
    # a node told that no backward follows, when one does, retains x instead
    # and finds the argmax then
    p = MaxPooling2D(3, 2)
    p._want_grad = False
    xv = kusari.Variable(x)
    y = p.apply((xv,))[0]
    assert p.indexes is None
    gy = np.random.default_rng(1).standard_normal(y.shape).astype(np.float32)
    (gx,) = kusari.grad([y], [xv], [kusari.Variable(gy)])
    _, ridx = maxpool_ref(x.astype(np.float64), 3, 2, want_idx=True)
    np.testing.assert_array_equal(p.indexes, ridx)
    np.testing.assert_allclose(gx.array, grad_ref(x, ridx, gy, 3, 2), rtol=1e-6)


def test_max_pooling_double_backward_gathers():
    x = _distinct((2, 3, 7, 6))(np.random.default_rng(0), np.float64)
    xv = kusari.Variable(x)
    y = F.max_pooling_2d(xv, 3, 2, 1)
    gyv = kusari.Variable(np.random.default_rng(1).standard_normal(y.shape))
    (gx,) = kusari.grad([y], [xv], [gyv], enable_double_backprop=True)
    w = np.random.default_rng(2).standard_normal(x.shape)
    (ggy,) = kusari.grad([F.sum(gx * w)], [gyv])
    _, ridx = maxpool_ref(x, 3, 2, 1, want_idx=True)
    wpad = np.pad(w, ((0, 0), (0, 0), (1, 1), (1, 1)))
    ref = np.empty(y.shape)
    for n, c, i, j in itertools.product(*[range(v) for v in y.shape]):
        di, dj = divmod(int(ridx[n, c, i, j]), 3)
        ref[n, c, i, j] = wpad[n, c, 2 * i + di, 2 * j + dj]
    np.testing.assert_allclose(ggy.array, ref)
