"""Tests of L.LayerNormalization."""

import numpy as np

import kusari.links as L
from kusari import gradient_check


def test_output_params_and_lazy():
    ln = L.LayerNormalization(4)
    assert ln.gamma.shape == (4,) and ln.beta.shape == (4,)
    assert ln.eps == 1e-6
    x = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    expect = (x - x.mean(1, keepdims=True)) / np.sqrt(x.var(1, keepdims=True) + 1e-6)
    np.testing.assert_allclose(ln(x).array, expect, rtol=1e-4, atol=1e-5)
    lazy = L.LayerNormalization(initial_gamma=2.0, initial_beta=0.5)
    assert lazy.gamma.array is None
    y = lazy(x)
    assert lazy.gamma.shape == (4,)
    np.testing.assert_allclose(y.array, 2 * expect + 0.5, rtol=1e-4, atol=1e-5)


def test_gradient():
    ln = L.LayerNormalization(3)
    for p in ln.params():
        p.array = p.array.astype(np.float64)
    rng = np.random.default_rng(1)
    gradient_check.check_backward(
        ln,
        rng.standard_normal((2, 3)),
        rng.standard_normal((2, 3)),
        params=list(ln.params()),
        atol=1e-5,
        rtol=1e-4,
    )
