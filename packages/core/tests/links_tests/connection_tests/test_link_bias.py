"""Tests of L.Bias."""

import numpy as np
import pytest

import kusari.functions as F
import kusari.links as L
from kusari import gradient_check


def test_learnable_bias():
    layer = L.Bias(axis=1, shape=(3, 2))
    assert layer.b.shape == (3, 2)
    np.testing.assert_array_equal(layer.b.array, 0)
    layer.b.array[...] = np.arange(6).reshape(3, 2)
    x = np.ones((4, 3, 2, 5), np.float32)
    y = layer(x)
    np.testing.assert_allclose(y.array, F.bias(x, layer.b, 1).array)
    assert y.array[0, 2, 1, 0] == 6
    layer.b.array = layer.b.array.astype(np.float64)
    rng = np.random.default_rng(0)
    gradient_check.check_backward(
        layer,
        rng.standard_normal((2, 3, 2)),
        rng.standard_normal((2, 3, 2)),
        params=[layer.b],
    )


def test_given_bias_and_errors():
    layer = L.Bias(axis=0)
    assert list(layer.params()) == []
    y = layer(np.zeros((2, 3), np.float32), np.array([1, 2], np.float32))
    np.testing.assert_array_equal(y.array, [[1, 1, 1], [2, 2, 2]])
    with pytest.raises(TypeError):
        layer(np.zeros((2, 3), np.float32))
    with pytest.raises(TypeError):
        L.Bias(shape=(3,))(np.zeros((2, 3), np.float32), np.zeros(3, np.float32))


def test_wrong_input_count_is_also_an_assertion_error():
    # Chainer checked the count with `assert` (debug mode); code catching
    # AssertionError keeps working, code catching TypeError too.
    with pytest.raises(AssertionError, match="takes two inputs, got 1"):
        L.Bias(axis=1)(np.zeros((2, 3), np.float32))
    with pytest.raises(AssertionError, match="takes one input, got 2"):
        L.Bias(shape=(3,))(np.zeros((2, 3), np.float32), np.zeros(3, np.float32))
