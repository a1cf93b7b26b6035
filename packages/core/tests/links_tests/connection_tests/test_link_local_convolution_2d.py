"""Tests of L.LocalConvolution2D."""

import numpy as np
import pytest

import kusari.functions as F
import kusari.links as L
from kusari import gradient_check


def test_params_output_and_lazy():
    conv = L.LocalConvolution2D(2, 3, (5, 4), 2, stride=2)
    assert conv.W.shape == (3, 2, 2, 2, 2, 2) and conv.b.shape == (3, 2, 2)
    x = np.random.default_rng(0).standard_normal((2, 2, 5, 4)).astype(np.float32)
    y = conv(x)
    assert y.shape == (2, 3, 2, 2)
    expect = F.local_convolution_2d(x, conv.W, conv.b, 2).array
    np.testing.assert_allclose(y.array, expect, rtol=1e-6)
    lazy = L.LocalConvolution2D(None, 3, ksize=3, nobias=True)
    assert lazy.W.array is None and lazy.b is None
    assert lazy(x).shape == (2, 3, 3, 2)
    assert lazy.W.shape == (3, 3, 2, 2, 3, 3)


def test_errors():
    with pytest.raises(ValueError, match="ksize"):
        L.LocalConvolution2D(2, 3, 4)
    with pytest.raises(ValueError, match="smaller"):
        L.LocalConvolution2D(2, 3, 2, 3)


def test_gradient():
    conv = L.LocalConvolution2D(1, 2, 3, 2)
    for p in conv.params():
        p.array = p.array.astype(np.float64)
    rng = np.random.default_rng(1)
    gradient_check.check_backward(
        conv,
        rng.standard_normal((2, 1, 3, 3)),
        rng.standard_normal((2, 2, 2, 2)),
        params=list(conv.params()),
        atol=1e-6,
        rtol=1e-5,
    )
