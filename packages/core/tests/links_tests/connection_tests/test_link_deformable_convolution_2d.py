"""Tests of L.DeformableConvolution2D."""

import numpy as np

import kusari.functions as F
import kusari.links as L
from kusari import gradient_check


def test_structure_and_zero_offset():
    conv = L.DeformableConvolution2D(2, 3, 3, pad=1)
    shapes = {n: p.shape for n, p in conv.namedparams()}
    assert shapes == {
        "/offset_conv/W": (18, 2, 3, 3),
        "/offset_conv/b": (18,),
        "/deform_conv/W": (3, 2, 3, 3),
        "/deform_conv/b": (3,),
    }
    np.testing.assert_array_equal(conv.deform_conv.W.array, 0)  # Chainer's default
    rng = np.random.default_rng(0)
    conv.deform_conv.W.array[...] = rng.standard_normal((3, 2, 3, 3))
    conv.offset_conv.W.array[...] = 0  # zero offsets: a plain convolution
    x = rng.standard_normal((1, 2, 4, 4)).astype(np.float32)
    y = conv(x)
    expect = F.convolution_2d(x, conv.deform_conv.W, conv.deform_conv.b, 1, 1).array
    np.testing.assert_allclose(y.array, expect, rtol=1e-5, atol=1e-5)
    offset = conv.offset_conv(x)
    direct = F.deformable_convolution_2d_sampler(
        x, offset, conv.deform_conv.W, conv.deform_conv.b, 1, 1
    ).array
    np.testing.assert_allclose(y.array, direct, rtol=1e-6)


def test_lazy_and_options():
    conv = L.DeformableConvolution2D(
        None, 2, 2, offset_nobias=True, deform_nobias=True, deform_initialW=1.0
    )
    assert conv.offset_conv.b is None and conv.deform_conv.b is None
    y = conv(np.ones((1, 3, 3, 3), np.float32))
    assert y.shape == (1, 2, 2, 2)
    assert conv.deform_conv.W.shape == (2, 3, 2, 2)


def test_gradient():
    conv = L.DeformableConvolution2D(1, 1, 2)
    rng = np.random.default_rng(1)
    conv.deform_conv.W.array[...] = rng.standard_normal((1, 1, 2, 2))
    conv.offset_conv.W.array[...] *= 0.1
    for p in conv.params():
        p.array = p.array.astype(np.float64)
    x = rng.uniform(-1, 1, (1, 1, 3, 3))
    gradient_check.check_backward(
        conv,
        x,
        rng.standard_normal((1, 1, 2, 2)),
        params=[conv.deform_conv.W, conv.deform_conv.b],
        atol=1e-4,
        rtol=1e-3,
    )
