"""Tests of L.Swish."""

import numpy as np

import kusari.links as L
from kusari import gradient_check


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def test_output_and_shapes():
    s = L.Swish((3,), beta_init=2.0)
    np.testing.assert_array_equal(s.beta.array, 2)
    x = np.random.default_rng(0).standard_normal((2, 3, 4)).astype(np.float32)
    np.testing.assert_allclose(s(x).array, x * _sigmoid(2 * x), rtol=1e-5)
    lazy = L.Swish(None, beta_init=0.5)
    assert lazy.beta.array is None
    lazy(x)
    assert lazy.beta.shape == (3, 4)
    np.testing.assert_array_equal(lazy.beta.array, 0.5)


def test_gradient():
    s = L.Swish((2,))
    s.beta.array = np.array([0.5, 1.5])
    rng = np.random.default_rng(1)
    gradient_check.check_backward(
        s, rng.standard_normal((3, 2)), rng.standard_normal((3, 2)), params=[s.beta]
    )
