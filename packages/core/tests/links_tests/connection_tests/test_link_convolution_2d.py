"""Tests of L.Convolution2D."""

import numpy as np
import pytest

import kusari
import kusari.functions as F
import kusari.links as L
from kusari import gradient_check, serializers
from kusari.utils import type_check


def _x(shape, seed=0, dtype=np.float32):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def test_params_and_output():
    conv = L.Convolution2D(3, 4, 3, stride=2, pad=1)
    assert conv.W.shape == (4, 3, 3, 3)
    assert conv.b.shape == (4,)
    assert sorted(n for n, _ in conv.namedparams()) == ["/W", "/b"]
    np.testing.assert_array_equal(conv.b.array, 0)
    x = _x((2, 3, 7, 7))
    y = conv(x)
    assert y.shape == (2, 4, 4, 4)
    expect = F.convolution_2d(x, conv.W, conv.b, 2, 1).array
    np.testing.assert_allclose(y.array, expect, rtol=1e-6)


def test_short_form_is_lazy():
    conv = L.Convolution2D(5, (2, 3))
    assert conv.W.array is None and conv.in_channels is None
    assert conv.b.shape == (5,)
    y = conv(_x((1, 4, 6, 6)))
    assert conv.W.shape == (5, 4, 2, 3)
    assert conv.in_channels == 4
    assert y.shape == (1, 5, 5, 4)
    lazy = L.Convolution2D(None, 2, 3)
    lazy(_x((1, 3, 4, 4)))
    assert lazy.W.shape == (2, 3, 3, 3)


def test_groups_and_dilate():
    conv = L.Convolution2D(4, 6, 3, pad=2, dilate=2, groups=2)
    assert conv.W.shape == (6, 2, 3, 3)
    x = _x((1, 4, 5, 5))
    expect = F.convolution_2d(x, conv.W, conv.b, 1, 2, dilate=2, groups=2).array
    np.testing.assert_allclose(conv(x).array, expect, rtol=1e-6)
    with pytest.raises(ValueError, match="divisible"):
        L.Convolution2D(3, 4, 3, groups=2)
    with pytest.raises(ValueError, match="divisible"):
        L.Convolution2D(4, 3, 3, groups=2)
    lazy = L.Convolution2D(4, 3, groups=2)
    with pytest.raises(ValueError, match="input channels"):
        lazy(_x((1, 3, 4, 4)))


def test_nobias_and_initializers():
    conv = L.Convolution2D(2, 3, 1, nobias=True, initialW=kusari.initializers.One())
    assert conv.b is None
    np.testing.assert_array_equal(conv.W.array, 1)
    x = _x((1, 2, 2, 2))
    np.testing.assert_allclose(conv(x).array[0, 0], x[0].sum(0), rtol=1e-6)
    conv = L.Convolution2D(2, 3, 1, initial_bias=0.5)
    np.testing.assert_array_equal(conv.b.array, 0.5)


def test_from_params():
    W = _x((4, 2, 3, 3))
    b = _x((4,))
    conv = L.Convolution2D.from_params(W, b, stride=1, pad=1, groups=2)
    assert conv.in_channels == 4 and conv.out_channels == 4
    np.testing.assert_array_equal(conv.W.array, W)
    np.testing.assert_array_equal(conv.b.array, b)
    assert L.Convolution2D.from_params(W).b is None
    with pytest.raises(ValueError):
        L.Convolution2D.from_params(W, np.zeros(3, np.float32))


def test_gradient():
    conv = L.Convolution2D(2, 2, 2, stride=1, pad=1)
    for p in conv.params():
        p.array = p.array.astype(np.float64)
    x = _x((1, 2, 3, 3), dtype=np.float64)
    gy = _x((1, 2, 4, 4), seed=1, dtype=np.float64)
    gradient_check.check_backward(
        conv, x, gy, params=list(conv.params()), atol=1e-6, rtol=1e-5
    )


def test_save_load(tmp_path):
    conv = L.Convolution2D(2, 3, 2)
    path = tmp_path / "conv.npz"
    serializers.save_npz(str(path), conv)
    other = L.Convolution2D(3, 2)  # lazy: initialized from the file
    serializers.load_npz(str(path), other)
    np.testing.assert_array_equal(other.W.array, conv.W.array)
    x = _x((1, 2, 4, 4))
    np.testing.assert_array_equal(other(x).array, conv(x).array)


def test_repr_and_errors():
    text = repr(L.Convolution2D(2, 3, 2))
    assert "Convolution2D" in text and "out_channels=3" in text
    with pytest.raises(ValueError):
        L.Convolution2D(3, None)
    with pytest.raises(TypeError):
        L.Convolution2D(2, 3, 2, cover_all=True)
    conv = L.Convolution2D(2, 3, 2)
    with pytest.raises(type_check.InvalidType, match="W.shape"):
        conv(_x((1, 4, 4, 4)))
