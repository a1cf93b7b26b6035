"""Tests of L.PReLU."""

import numpy as np

import kusari.links as L
from kusari import gradient_check


def test_default_and_shape():
    p = L.PReLU()
    assert p.W.shape == () and float(p.W.array) == 0.25
    x = np.array([[-4.0, 2.0]], np.float32)
    np.testing.assert_allclose(p(x).array, [[-1.0, 2.0]])
    p2 = L.PReLU(shape=(2,), init=0.5)
    p2.W.array[...] = [0.5, 2.0]
    x = -np.ones((3, 2, 4), np.float32)
    np.testing.assert_allclose(p2(x).array[0, :, 0], [-0.5, -2.0])


def test_gradient():
    p = L.PReLU(shape=(3,))
    p.W.array = p.W.array.astype(np.float64)
    rng = np.random.default_rng(0)
    x = rng.uniform(0.2, 1, (2, 3)) * rng.choice([-1, 1], (2, 3))
    gradient_check.check_backward(p, x, rng.standard_normal((2, 3)), params=[p.W])
