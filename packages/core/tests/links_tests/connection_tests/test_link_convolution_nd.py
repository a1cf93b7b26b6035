"""Tests of L.ConvolutionND, L.Convolution1D and L.Convolution3D."""

import numpy as np
import pytest

import kusari.functions as F
import kusari.links as L
from kusari import gradient_check


def _x(shape, seed=0, dtype=np.float32):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


@pytest.mark.parametrize("ndim", [1, 2, 3])
def test_output_matches_function(ndim):
    conv = L.ConvolutionND(ndim, 2, 3, 2, stride=1, pad=1)
    assert conv.W.shape == (3, 2) + (2,) * ndim
    x = _x((2, 2) + (3,) * ndim)
    y = conv(x)
    assert y.shape == (2, 3) + (4,) * ndim
    expect = F.convolution_nd(x, conv.W, conv.b, 1, 1).array
    np.testing.assert_allclose(y.array, expect, rtol=1e-6)


def test_aliases_and_lazy():
    c1 = L.Convolution1D(4, 3)
    assert c1.W.array is None
    assert c1(_x((1, 2, 6))).shape == (1, 4, 4)
    assert c1.W.shape == (4, 2, 3)
    c3 = L.Convolution3D(2, 4, (1, 2, 3), groups=2, nobias=True)
    assert c3.W.shape == (4, 1, 1, 2, 3) and c3.b is None
    x = _x((1, 2, 3, 3, 3))
    expect = F.convolution_3d(x, c3.W, groups=2).array
    np.testing.assert_allclose(c3(x).array, expect, rtol=1e-6)
    assert isinstance(c3, L.ConvolutionND) and c3.ndim == 3


def test_cover_all_and_dilate():
    conv = L.ConvolutionND(1, 1, 1, 2, stride=2, cover_all=True)
    assert conv(_x((1, 1, 5))).shape == (1, 1, 3)
    conv = L.Convolution1D(1, 1, 2, dilate=2)
    assert conv(_x((1, 1, 5))).shape == (1, 1, 3)


def test_from_params():
    W = _x((3, 2, 2, 2))
    conv = L.ConvolutionND.from_params(W, np.zeros(3, np.float32))
    assert conv.ndim == 2 and conv.in_channels == 2
    np.testing.assert_array_equal(conv.W.array, W)
    c1 = L.Convolution1D.from_params(_x((4, 1, 3)), groups=2)
    assert c1.in_channels == 2 and c1.b is None


def test_errors():
    with pytest.raises(ValueError, match="ksize"):
        L.ConvolutionND(2, 1, 1, (1, 2, 3))
    with pytest.raises(ValueError, match="divisible"):
        L.Convolution3D(3, 2, 1, groups=2)


def test_gradient():
    conv = L.Convolution1D(2, 2, 2, pad=1)
    for p in conv.params():
        p.array = p.array.astype(np.float64)
    x = _x((2, 2, 3), dtype=np.float64)
    gy = _x((2, 2, 4), seed=1, dtype=np.float64)
    gradient_check.check_backward(
        conv, x, gy, params=list(conv.params()), atol=1e-6, rtol=1e-5
    )
