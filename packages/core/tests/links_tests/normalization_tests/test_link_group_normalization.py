"""Tests of L.GroupNormalization."""

import numpy as np
import pytest

import kusari.links as L
from kusari import gradient_check


def test_output_params_and_lazy():
    gn = L.GroupNormalization(2, 4)
    assert gn.gamma.shape == (4,) and gn.groups == 2 and gn.eps == 1e-5
    x = np.random.default_rng(0).standard_normal((3, 4, 5)).astype(np.float32)
    g = x.reshape(3, 2, -1)
    expect = (
        (g - g.mean(2, keepdims=True)) / np.sqrt(g.var(2, keepdims=True) + 1e-5)
    ).reshape(x.shape)
    np.testing.assert_allclose(gn(x).array, expect, rtol=1e-4, atol=1e-5)
    lazy = L.GroupNormalization(4)
    lazy(x)
    assert lazy.gamma.shape == (4,) and lazy.beta.dtype == np.float32
    with pytest.raises(ValueError, match="at least 2"):
        L.GroupNormalization(1)(np.zeros(3, np.float32))


def test_gradient():
    gn = L.GroupNormalization(2, 4, initial_gamma=np.array([1, 2, 3, 4], np.float32))
    for p in gn.params():
        p.array = p.array.astype(np.float64)
    rng = np.random.default_rng(1)
    gradient_check.check_backward(
        gn,
        rng.standard_normal((2, 4, 3)),
        rng.standard_normal((2, 4, 3)),
        params=list(gn.params()),
        atol=1e-5,
        rtol=1e-4,
    )
