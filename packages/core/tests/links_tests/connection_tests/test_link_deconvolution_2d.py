"""Tests of L.Deconvolution2D."""

import numpy as np
import pytest

import kusari.functions as F
import kusari.links as L
from kusari import gradient_check, serializers


def _x(shape, seed=0, dtype=np.float32):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def test_params_and_output():
    deconv = L.Deconvolution2D(3, 4, 4, stride=2, pad=1)
    assert deconv.W.shape == (3, 4, 4, 4)
    assert deconv.b.shape == (4,)
    x = _x((2, 3, 5, 5))
    y = deconv(x)
    assert y.shape == (2, 4, 10, 10)
    expect = F.deconvolution_2d(x, deconv.W, deconv.b, 2, 1).array
    np.testing.assert_allclose(y.array, expect, rtol=1e-6)


def test_outsize_groups_lazy():
    deconv = L.Deconvolution2D(2, 3, stride=2, outsize=(6, 6))
    assert deconv.W.array is None
    y = deconv(_x((1, 4, 3, 3)))
    assert deconv.W.shape == (4, 2, 3, 3)
    assert y.shape == (1, 2, 6, 6)
    grouped = L.Deconvolution2D(4, 6, 3, groups=2)
    assert grouped.W.shape == (4, 3, 3, 3)
    x = _x((1, 4, 3, 3))
    expect = F.deconvolution_2d(x, grouped.W, grouped.b, groups=2).array
    np.testing.assert_allclose(grouped(x).array, expect, rtol=1e-6)
    with pytest.raises(ValueError, match="divisible"):
        L.Deconvolution2D(4, 5, 3, groups=2)


def test_from_params_and_bias_check():
    W = _x((3, 2, 2, 2))
    deconv = L.Deconvolution2D.from_params(W, np.ones(2, np.float32))
    assert deconv.out_channels == 2 and deconv.in_channels == 3
    np.testing.assert_array_equal(deconv.b.array, 1)
    with pytest.raises(ValueError, match="initial_bias"):
        L.Deconvolution2D(3, 2, 2, initial_bias=np.zeros(5, np.float32))
    assert L.Deconvolution2D(3, 2, 2, nobias=True).b is None


def test_gradient():
    deconv = L.Deconvolution2D(2, 2, 2, stride=2)
    for p in deconv.params():
        p.array = p.array.astype(np.float64)
    x = _x((1, 2, 2, 2), dtype=np.float64)
    gy = _x((1, 2, 4, 4), seed=1, dtype=np.float64)
    gradient_check.check_backward(
        deconv, x, gy, params=list(deconv.params()), atol=1e-6, rtol=1e-5
    )


def test_save_load(tmp_path):
    deconv = L.Deconvolution2D(2, 3, 2)
    path = tmp_path / "deconv.npz"
    serializers.save_npz(str(path), deconv)
    other = L.Deconvolution2D(2, 3, 2)
    serializers.load_npz(str(path), other)
    np.testing.assert_array_equal(other.W.array, deconv.W.array)
    assert "Deconvolution2D" in repr(other)
