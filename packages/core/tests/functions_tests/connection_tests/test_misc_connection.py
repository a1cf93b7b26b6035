"""Tests of embed_id, bilinear, depthwise_convolution_2d, local_convolution_2d
and shift against loop references."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


# -- embed_id ------------------------------------------------------------------
def _ids(shape, n, ignore=None):
    def gen(rng, dtype):
        x = rng.integers(0, n, shape).astype(np.int32)
        if ignore is not None:
            x.flat[::3] = ignore
        return x

    return gen


def embed_ref(x, W, ignore_label=None):
    y = np.zeros(x.shape + (W.shape[1],))
    for pos in itertools.product(*[range(v) for v in x.shape]):
        if ignore_label is not None and x[pos] == ignore_label:
            continue
        y[pos] = W[x[pos]]
    return y


@pytest.mark.parametrize("ignore", [None, -1, 2])
@pytest.mark.parametrize("shape", [(5,), (2, 3)])
def test_embed_id(shape, ignore, float_dtype, device):
    check_op(
        lambda x, W: F.embed_id(x, W, ignore_label=ignore),
        lambda x, W: embed_ref(x, W, ignore),
        [_ids(shape, 4, ignore), (4, 3)],
        dtype=float_dtype,
        device=device,
    )


def test_embed_id_ignored_rows_get_no_grad():
    W = kusari.Variable(np.ones((3, 2), np.float32))
    y = F.embed_id(np.array([0, -1, 0, 2], np.int32), W, ignore_label=-1)
    y.grad = np.ones(y.shape, np.float32)
    y.backward()
    np.testing.assert_array_equal(W.grad, [[2, 2], [0, 0], [1, 1]])


def test_embed_id_errors():
    W = np.zeros((3, 2), np.float32)
    with pytest.raises(ValueError, match="embed_id"):
        F.embed_id(np.array([3], np.int32), W)
    with pytest.raises(type_check.InvalidType, match="EmbedIDFunction"):
        F.embed_id(np.array([0.0], np.float32), W)


# -- bilinear ------------------------------------------------------------------
def bilinear_ref(e1, e2, W, V1=None, V2=None, b=None):
    e1 = e1.reshape(len(e1), -1)
    e2 = e2.reshape(len(e2), -1)
    y = np.zeros((len(e1), W.shape[2]))
    for i, j, k in itertools.product(
        range(len(e1)), range(W.shape[0]), range(W.shape[1])
    ):
        y[i] += e1[i, j] * e2[i, k] * W[j, k]
    if V1 is not None:
        y += e1 @ V1 + e2 @ V2 + b
    return y


def test_bilinear(float_dtype, device):
    check_op(
        F.bilinear,
        bilinear_ref,
        [(2, 3), (2, 4), (3, 4, 2)],
        dtype=float_dtype,
        device=device,
    )
    check_op(
        F.bilinear,
        bilinear_ref,
        [(2, 3, 1), (2, 2), (3, 2, 2), (3, 2), (2, 2), (2,)],
        dtype=float_dtype,
        device=device,
    )


def test_bilinear_errors():
    with pytest.raises(ValueError, match="bilinear"):
        F.bilinear(
            np.zeros((2, 3), np.float32),
            np.zeros((2, 4), np.float32),
            np.zeros((3, 4, 2), np.float32),
            V1=np.zeros((3, 2), np.float32),
        )
    with pytest.raises(type_check.InvalidType, match="Bilinear"):
        F.bilinear(
            np.zeros((2, 3), np.float32),
            np.zeros((2, 4), np.float32),
            np.zeros((3, 5, 2), np.float32),
        )


# -- depthwise_convolution_2d -------------------------------------------------------
def depthwise_ref(x, W, b=None, stride=1, pad=0):
    M, C, kh, kw = W.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh = (xp.shape[2] - kh) // stride + 1
    ow = (xp.shape[3] - kw) // stride + 1
    y = np.zeros((x.shape[0], C * M, oh, ow))
    for c, m, i, j in itertools.product(range(C), range(M), range(oh), range(ow)):
        patch = xp[:, c, i * stride : i * stride + kh, j * stride : j * stride + kw]
        y[:, c * M + m, i, j] = (patch * W[m, c]).sum(axis=(1, 2))
    if b is not None:
        y += b.reshape(1, -1, 1, 1)
    return y


def test_depthwise_convolution_2d(float_dtype, device):
    check_op(
        lambda x, W, b: F.depthwise_convolution_2d(x, W, b, 2, 1),
        lambda x, W, b: depthwise_ref(x, W, b, 2, 1),
        [(2, 3, 5, 4), (2, 3, 3, 2), (6,)],
        dtype=float_dtype,
        device=device,
    )


def test_depthwise_convolution_2d_error():
    with pytest.raises(type_check.InvalidType, match="DepthwiseConvolution2D"):
        F.depthwise_convolution_2d(
            np.zeros((1, 3, 4, 4), np.float32), np.zeros((2, 2, 3, 3), np.float32)
        )


# -- local_convolution_2d -------------------------------------------------------
def local_ref(x, W, b=None, stride=1):
    O, oh, ow, C, kh, kw = W.shape
    y = np.zeros((x.shape[0], O, oh, ow))
    for o, i, j in itertools.product(range(O), range(oh), range(ow)):
        patch = x[:, :, i * stride : i * stride + kh, j * stride : j * stride + kw]
        y[:, o, i, j] = (patch * W[o, i, j]).sum(axis=(1, 2, 3))
    if b is not None:
        y += b
    return y


@pytest.mark.parametrize("stride", [1, 2])
def test_local_convolution_2d(stride, float_dtype, device):
    oh = (5 - 2) // stride + 1
    ow = (4 - 2) // stride + 1
    check_op(
        lambda x, W, b: F.local_convolution_2d(x, W, b, stride),
        lambda x, W, b: local_ref(x, W, b, stride),
        [(2, 2, 5, 4), (3, oh, ow, 2, 2, 2), (3, oh, ow)],
        dtype=float_dtype,
        device=device,
    )


@pytest.mark.parametrize(
    "x_dtype,w_dtype", [("f", "d"), ("d", "f"), ("e", "f"), ("e", "d")]
)
def test_local_convolution_2d_mixed_weight_dtype(x_dtype, w_dtype):
    # W may be another float type than x (Chainer v7): y and gx keep x's dtype,
    # gW keeps W's, and the values match the float64 reference.
    rng = np.random.default_rng(3)
    x = rng.uniform(-1, 1, (2, 2, 4, 4)).astype(x_dtype)
    W = rng.uniform(-1, 1, (3, 3, 3, 2, 2, 2)).astype(w_dtype)
    b = rng.uniform(-1, 1, (3, 3, 3)).astype(x_dtype)
    xv, Wv = kusari.Variable(x), kusari.Variable(W)
    y = F.local_convolution_2d(xv, Wv, b)
    assert y.dtype == np.dtype(x_dtype)
    tol = 1e-2 if "e" in (x_dtype, w_dtype) else 1e-5
    np.testing.assert_allclose(
        y.array, local_ref(x.astype("d"), W.astype("d"), b), atol=tol, rtol=tol
    )
    y.grad = np.ones_like(y.array)
    y.backward()
    assert xv.grad.dtype == np.dtype(x_dtype)
    assert Wv.grad.dtype == np.dtype(w_dtype)
    gW = np.zeros((3, 3, 3, 2, 2, 2))
    for i, j in itertools.product(range(3), range(3)):
        gW[:, i, j] = x[:, :, i : i + 2, j : j + 2].astype("d").sum(axis=0)
    np.testing.assert_allclose(Wv.grad, gW, atol=tol * 10, rtol=tol)


def test_local_convolution_2d_error():
    with pytest.raises(type_check.InvalidType, match="LocalConvolution2DFunction"):
        F.local_convolution_2d(
            np.zeros((1, 2, 4, 4), np.float32), np.zeros((3, 2, 2, 2, 2, 2), np.float32)
        )


# -- shift ----------------------------------------------------------------------
def shift_ref(x, ksize=3, dilate=1):
    kh, kw = (ksize, ksize) if isinstance(ksize, int) else ksize
    dy, dx = (dilate, dilate) if isinstance(dilate, int) else dilate
    n, c, h, w = x.shape
    ng = kh * kw
    gs = c // ng
    y = np.zeros_like(x)
    for ch in range(c):
        i = min(ch // gs, ng - 1)
        g = {(ng - 1) // 2: ng - 1, ng - 1: (ng - 1) // 2}.get(i, i)
        sy = (g // kw - kh // 2) * dy
        sx = (g % kw - kw // 2) * dx
        for r, q in itertools.product(range(h), range(w)):
            if 0 <= r - sy < h and 0 <= q - sx < w:
                y[:, ch, r, q] = x[:, ch, r - sy, q - sx]
    return y


@pytest.mark.parametrize(
    "ksize,dilate,c", [(3, 1, 9), (3, 2, 11), ((1, 3), (1, -1), 4)]
)
def test_shift(ksize, dilate, c, float_dtype, device):
    check_op(
        lambda x: F.shift(x, ksize, dilate),
        lambda x: shift_ref(x, ksize, dilate),
        [(2, c, 4, 5)],
        dtype=float_dtype,
        device=device,
    )


def test_shift_errors():
    with pytest.raises(ValueError, match="shift"):
        F.shift(np.zeros((1, 9, 3, 3), np.float32), 2)
    with pytest.raises(type_check.InvalidType, match="ShiftFunction"):
        F.shift(np.zeros((1, 4, 3, 3), np.float32), 3)
