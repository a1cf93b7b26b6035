"""Tests of L.DilatedConvolution2D."""

import numpy as np

import kusari.functions as F
import kusari.links as L
from kusari import gradient_check


def test_params_output_and_lazy():
    conv = L.DilatedConvolution2D(2, 3, 3, pad=2, dilate=2)
    assert conv.W.shape == (3, 2, 3, 3) and conv.b.shape == (3,)
    x = np.random.default_rng(0).standard_normal((1, 2, 6, 6)).astype(np.float32)
    y = conv(x)
    expect = F.dilated_convolution_2d(x, conv.W, conv.b, 1, 2, 2).array
    np.testing.assert_allclose(y.array, expect, rtol=1e-6)
    lazy = L.DilatedConvolution2D(4, 3, dilate=2, nobias=True)
    assert lazy.W.array is None and lazy.b is None
    assert lazy(x).shape == (1, 4, 2, 2)
    assert lazy.W.shape == (4, 2, 3, 3)
    assert "dilate=(2, 2)" in repr(lazy)


def test_gradient():
    conv = L.DilatedConvolution2D(1, 2, 2, dilate=2)
    for p in conv.params():
        p.array = p.array.astype(np.float64)
    rng = np.random.default_rng(1)
    gradient_check.check_backward(
        conv,
        rng.standard_normal((1, 1, 4, 4)),
        rng.standard_normal((1, 2, 2, 2)),
        params=list(conv.params()),
        atol=1e-6,
        rtol=1e-5,
    )
