"""Tests of deformable_convolution_2d_sampler against a loop reference."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op


def _sample(img, yy, xx):
    """Bilinear sample of img (C, H, W) at (yy, xx), zero outside the image."""
    C, H, W = img.shape
    y0, x0 = math.floor(yy), math.floor(xx)
    out = np.zeros(C)
    for yi, xi in itertools.product((y0, y0 + 1), (x0, x0 + 1)):
        if 0 <= yi < H and 0 <= xi < W:
            out += (1 - abs(yy - yi)) * (1 - abs(xx - xi)) * img[:, yi, xi]
    return out


def deform_ref(x, offset, W, b=None, stride=1, pad=0):
    n, c, h, w = x.shape
    O, _, kh, kw = W.shape
    _, _, oh, ow = offset.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    y = np.zeros((n, O, oh, ow))
    for b_, i, j in itertools.product(range(n), range(oh), range(ow)):
        acc = np.zeros(O)
        for ki, kj in itertools.product(range(kh), range(kw)):
            t = ki * kw + kj
            yy = i * stride + ki + offset[b_, kh * kw + t, i, j]
            xx = j * stride + kj + offset[b_, t, i, j]
            acc += W[:, :, ki, kj] @ _sample(xp[b_], yy, xx)
        y[b_, :, i, j] = acc
    if b is not None:
        y += b.reshape(1, -1, 1, 1)
    return y


@pytest.mark.parametrize("stride,pad", [(1, 0), (2, 1)])
def test_deformable_convolution_2d_sampler(stride, pad, device):
    h, w, k = 5, 6, 2
    oh = (h + 2 * pad - k) // stride + 1
    ow = (w + 2 * pad - k) // stride + 1

    def offs(rng, dtype):
        # Taps stay within one pixel of the padded image: the grid gradient of
        # spatial_transformer_sampler is wrong for points further outside
        # (reported separately).
        return rng.uniform(-0.45, 0.45, (2, 2 * k * k, oh, ow)).astype(dtype)

    check_op(
        lambda x, o, W, b: F.deformable_convolution_2d_sampler(x, o, W, b, stride, pad),
        lambda x, o, W, b: deform_ref(x, o, W, b, stride, pad),
        [(2, 3, h, w), offs, (4, 3, k, k), (4,)],
        dtype=np.float64,
        device=device,
        double_backward=False,  # the bilinear sampler is piecewise linear
        dodge_nondifferentiable=True,
    )


def test_deformable_convolution_2d_sampler_bad_offset():
    with pytest.raises(ValueError, match="deformable_convolution_2d_sampler"):
        F.deformable_convolution_2d_sampler(
            np.zeros((1, 2, 4, 4), np.float32),
            np.zeros((1, 3, 3, 3), np.float32),
            np.zeros((2, 2, 2, 2), np.float32),
        )
