"""Tests of L.DeconvolutionND, L.Deconvolution1D and L.Deconvolution3D."""

import numpy as np
import pytest

import kusari.functions as F
import kusari.links as L
from kusari import gradient_check


def _x(shape, seed=0, dtype=np.float32):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


@pytest.mark.parametrize("ndim", [1, 2, 3])
def test_output_matches_function(ndim):
    deconv = L.DeconvolutionND(ndim, 2, 3, 2, stride=2)
    assert deconv.W.shape == (2, 3) + (2,) * ndim
    x = _x((1, 2) + (2,) * ndim)
    y = deconv(x)
    assert y.shape == (1, 3) + (4,) * ndim
    expect = F.deconvolution_nd(x, deconv.W, deconv.b, 2).array
    np.testing.assert_allclose(y.array, expect, rtol=1e-6)


def test_aliases_lazy_outsize_groups():
    d1 = L.Deconvolution1D(3, 2, stride=2, outsize=(6,))
    assert d1.W.array is None
    assert d1(_x((1, 4, 3))).shape == (1, 3, 6)
    assert d1.W.shape == (4, 3, 2)
    d3 = L.Deconvolution3D(4, 2, 1, groups=2)
    assert d3.W.shape == (4, 1, 1, 1, 1)
    x = _x((1, 4, 2, 2, 2))
    expect = F.deconvolution_3d(x, d3.W, d3.b, groups=2).array
    np.testing.assert_allclose(d3(x).array, expect, rtol=1e-6)
    with pytest.raises(ValueError, match="divisible"):
        L.Deconvolution1D(3, 2, 1, groups=2)


def test_from_params():
    W = _x((2, 3, 2))
    d = L.Deconvolution1D.from_params(W, np.ones(3, np.float32))
    assert d.in_channels == 2 and d.out_channels == 3
    dn = L.DeconvolutionND.from_params(_x((2, 1, 2, 2)), groups=2)
    assert dn.ndim == 2 and dn.out_channels == 2 and dn.b is None


def test_gradient():
    d = L.Deconvolution1D(2, 2, 2, stride=2)
    for p in d.params():
        p.array = p.array.astype(np.float64)
    x = _x((1, 2, 3), dtype=np.float64)
    gy = _x((1, 2, 6), seed=1, dtype=np.float64)
    gradient_check.check_backward(
        d, x, gy, params=list(d.params()), atol=1e-6, rtol=1e-5
    )
