"""Tests of L.DepthwiseConvolution2D."""

import numpy as np

import kusari.functions as F
import kusari.links as L
from kusari import gradient_check


def test_params_output_and_lazy():
    dw = L.DepthwiseConvolution2D(3, 2, 3, stride=2, pad=1)
    assert dw.W.shape == (2, 3, 3, 3) and dw.b.shape == (6,)
    x = np.random.default_rng(0).standard_normal((1, 3, 5, 5)).astype(np.float32)
    y = dw(x)
    assert y.shape == (1, 6, 3, 3)
    expect = F.depthwise_convolution_2d(x, dw.W, dw.b, 2, 1).array
    np.testing.assert_allclose(y.array, expect, rtol=1e-6)
    lazy = L.DepthwiseConvolution2D(None, 3, (1, 2), nobias=True)
    assert lazy.W.array is None and lazy.b is None
    lazy(x)
    assert lazy.W.shape == (3, 3, 1, 2)
    assert "DepthwiseConvolution2D" in repr(lazy)


def test_gradient():
    dw = L.DepthwiseConvolution2D(2, 2, 2)
    for p in dw.params():
        p.array = p.array.astype(np.float64)
    rng = np.random.default_rng(1)
    gradient_check.check_backward(
        dw,
        rng.standard_normal((1, 2, 3, 3)),
        rng.standard_normal((1, 4, 2, 2)),
        params=list(dw.params()),
        atol=1e-6,
        rtol=1e-5,
    )
