"""Tests of L.Scale."""

import numpy as np
import pytest

import kusari.links as L
from kusari import gradient_check


def test_learnable_scale_with_bias():
    layer = L.Scale(axis=1, W_shape=(3,), bias_term=True)
    assert {n: p.shape for n, p in layer.namedparams()} == {"/W": (3,), "/bias/b": (3,)}
    np.testing.assert_array_equal(layer.W.array, 1)
    layer.W.array[...] = [1, 2, 3]
    layer.bias.b.array[...] = [0, 1, 0]
    x = np.ones((2, 3, 4), np.float32)
    y = layer(x)
    np.testing.assert_array_equal(y.array[0, :, 0], [1, 3, 3])
    for p in layer.params():
        p.array = p.array.astype(np.float64)
    rng = np.random.default_rng(0)
    gradient_check.check_backward(
        layer,
        rng.standard_normal((2, 3)),
        rng.standard_normal((2, 3)),
        params=list(layer.params()),
    )


def test_given_scale_and_bias_shape():
    layer = L.Scale(axis=1, bias_term=True, bias_shape=(2,))
    assert [n for n, _ in layer.namedparams()] == ["/bias/b"]
    y = layer(np.ones((3, 2), np.float32), np.array([2, 3], np.float32))
    np.testing.assert_array_equal(y.array, [[2, 3]] * 3)
    plain = L.Scale()
    assert not hasattr(plain, "bias")
    with pytest.raises(ValueError, match="bias_shape"):
        L.Scale(bias_term=True)
    with pytest.raises(TypeError):
        plain(np.ones(2, np.float32))


def test_wrong_input_count_is_also_an_assertion_error():
    x = np.ones((2, 3), np.float32)
    with pytest.raises(AssertionError, match="Scale without a learnable W"):
        L.Scale(axis=1)(x)
    with pytest.raises(AssertionError, match="Scale with a learnable W"):
        L.Scale(axis=1, W_shape=(3,))(x, np.ones(3, np.float32))
