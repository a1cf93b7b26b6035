"""Tests of L.Bilinear."""

import numpy as np
import pytest

import kusari.links as L
from kusari import gradient_check


def _e(shape, seed):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def test_params_and_output():
    layer = L.Bilinear(2, 3, 4)
    shapes = {n: p.shape for n, p in layer.namedparams()}
    assert shapes == {"/W": (2, 3, 4), "/V1": (2, 4), "/V2": (3, 4), "/b": (4,)}
    np.testing.assert_array_equal(layer.b.array, 0)
    e1, e2 = _e((5, 2), 0), _e((5, 3), 1)
    layer.b.array[...] = 0.5
    expect = (
        np.einsum("ij,ik,jkl->il", e1, e2, layer.W.array)
        + e1 @ layer.V1.array
        + e2 @ layer.V2.array
        + 0.5
    )
    np.testing.assert_allclose(layer(e1, e2).array, expect, rtol=1e-5, atol=1e-6)


def test_nobias_and_initial_bias():
    layer = L.Bilinear(2, 3, 4, nobias=True)
    assert [n for n, _ in layer.namedparams()] == ["/W"]
    e1, e2 = _e((5, 2), 0), _e((5, 3), 1)
    expect = np.einsum("ij,ik,jkl->il", e1, e2, layer.W.array)
    np.testing.assert_allclose(layer(e1, e2).array, expect, rtol=1e-5, atol=1e-6)
    init = (np.ones((2, 4), np.float32), np.zeros((3, 4), np.float32), 2.0)
    layer = L.Bilinear(2, 3, 4, initial_bias=init)
    np.testing.assert_array_equal(layer.V1.array, 1)
    np.testing.assert_array_equal(layer.b.array, 2)
    with pytest.raises(ValueError):
        L.Bilinear(2, 3, 4, initial_bias=1.0)
    with pytest.raises(ValueError):
        L.Bilinear(2, 3, 4, initialW=np.zeros((2, 3), np.float32))
    with pytest.raises(ValueError):
        L.Bilinear(2, 3, 4, initial_bias=(np.zeros((3, 4)), None, None))


def test_gradient():
    layer = L.Bilinear(2, 2, 3)
    for p in layer.params():
        p.array = p.array.astype(np.float64)
    rng = np.random.default_rng(2)
    gradient_check.check_backward(
        layer,
        (rng.standard_normal((3, 2)), rng.standard_normal((3, 2))),
        rng.standard_normal((3, 3)),
        params=list(layer.params()),
        atol=1e-6,
        rtol=1e-5,
    )


@pytest.mark.parametrize(
    "initialW,initial_bias,name",
    [
        (np.zeros((3, 3, 4), np.float32), None, "initialW"),
        (None, (np.zeros((3, 4), np.float32), None, None), "initial V1"),
        (None, (None, np.zeros((4, 4), np.float32), None), "initial V2"),
        (None, (None, None, np.zeros(5, np.float32)), "initial b"),
    ],
)
def test_wrong_initial_shape_is_value_and_assertion_error(initialW, initial_bias, name):
    # v7 asserted these shapes; code that catches AssertionError keeps working.
    with pytest.raises(ValueError, match=name) as info:
        L.Bilinear(2, 3, 4, False, initialW, initial_bias)
    assert isinstance(info.value, AssertionError)
