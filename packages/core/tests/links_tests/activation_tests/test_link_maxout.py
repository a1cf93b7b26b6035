"""Tests of L.Maxout."""

import numpy as np
import pytest

import kusari
import kusari.links as L
from kusari import gradient_check


def test_params_and_output():
    m = L.Maxout(3, 2, 4)
    assert m.linear.W.shape == (8, 3) and m.linear.b.shape == (8,)
    np.testing.assert_array_equal(m.linear.b.array, 0)
    x = np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32)
    h = x @ m.linear.W.array.T
    np.testing.assert_allclose(m(x).array, h.reshape(5, 2, 4).max(2), rtol=1e-6)


def test_array_initializers_are_reshaped():
    W = np.arange(24, dtype=np.float32).reshape(2, 4, 3)
    b = np.arange(8, dtype=np.float32).reshape(2, 4)
    m = L.Maxout(3, 2, 4, initialW=W, initial_bias=b)
    np.testing.assert_array_equal(m.linear.W.array, W.reshape(8, 3))
    np.testing.assert_array_equal(m.linear.b.array, b.reshape(8))
    with pytest.raises(ValueError, match="initialW"):
        L.Maxout(3, 2, 4, initialW=np.zeros((8, 3), np.float32))
    with pytest.raises(ValueError, match="initial_bias"):
        L.Maxout(3, 2, 4, initial_bias=np.zeros(8, np.float32))


def test_callable_initializer_sees_3d_shape_and_nobias_lazy():
    seen = []

    def init(array):
        seen.append(array.shape)
        array[...] = 1

    m = L.Maxout(3, 2, 4, initialW=init, initial_bias=None)
    assert seen == [(2, 4, 3)] and m.linear.b is None
    np.testing.assert_array_equal(m.linear.W.array, 1)
    lazy = L.Maxout(None, 2, 3, initialW=kusari.initializers.Normal(1.0))
    assert lazy(np.ones((1, 5), np.float32)).shape == (1, 2)
    assert lazy.linear.W.shape == (6, 5)


def test_gradient():
    m = L.Maxout(2, 2, 2)
    for p in m.params():
        p.array = p.array.astype(np.float64)
    rng = np.random.default_rng(1)
    gradient_check.check_backward(
        m,
        rng.standard_normal((3, 2)),
        rng.standard_normal((3, 2)),
        params=list(m.params()),
        atol=1e-6,
        rtol=1e-5,
    )
