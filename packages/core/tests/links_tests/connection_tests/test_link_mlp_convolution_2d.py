"""Tests of L.MLPConvolution2D."""

import numpy as np
import pytest

import kusari.functions as F
import kusari.links as L
from kusari import gradient_check


def test_structure_and_output():
    mlp = L.MLPConvolution2D(3, (4, 5, 6), 3, stride=1, pad=1)
    assert len(mlp) == 3
    assert [n for n, _ in mlp.namedparams()] == [
        "/0/W",
        "/0/b",
        "/1/W",
        "/1/b",
        "/2/W",
        "/2/b",
    ]
    assert mlp[0].W.shape == (4, 3, 3, 3)
    assert mlp[1].W.shape == (5, 4, 1, 1)
    assert mlp[2].W.shape == (6, 5, 1, 1)
    x = np.random.default_rng(0).standard_normal((1, 3, 4, 4)).astype(np.float32)
    expect = mlp[2](F.relu(mlp[1](F.relu(mlp[0](x))))).array
    np.testing.assert_allclose(mlp(x).array, expect, rtol=1e-6)


def test_short_form_activation_and_init():
    mlp = L.MLPConvolution2D((2, 2), 1, activation=F.tanh, conv_init=1.0, bias_init=0)
    assert mlp[0].W.array is None
    y = mlp(np.full((1, 3, 2, 2), 0.1, np.float32))
    np.testing.assert_allclose(y.array, 2 * np.tanh(0.3), rtol=1e-6)


def test_errors_and_gradient():
    with pytest.raises(ValueError):
        L.MLPConvolution2D(3, (), 1)
    mlp = L.MLPConvolution2D(2, (2, 1), 2)
    for p in mlp.params():
        p.array = p.array.astype(np.float64)
    rng = np.random.default_rng(1)
    x = rng.standard_normal((1, 2, 3, 3))
    gy = rng.standard_normal((1, 1, 2, 2))
    gradient_check.check_backward(
        mlp, x, gy, params=list(mlp.params()), atol=1e-5, rtol=1e-4
    )


def test_v1_wscale_is_refused_by_name_and_position():
    with pytest.raises(ValueError, match="wscale is not supported anymore"):
        L.MLPConvolution2D(3, (4, 5), 3, wscale=1)
    # The 7th positional argument was wscale in Chainer v1.
    with pytest.raises(TypeError, match="MLPConvolution2D: takes at most 6"):
        L.MLPConvolution2D(3, (4, 5), 3, 1, 0, F.relu, 1)
    with pytest.raises(TypeError, match="unexpected keyword argument"):
        L.MLPConvolution2D(3, (4, 5), 3, initialW=None)


def test_out_channels_must_be_a_sequence():
    # The short form with an int where the channel list belongs.
    with pytest.raises(TypeError, match="out_channels must be a sequence.*int 10"):
        L.MLPConvolution2D(10, (15, 20), None)
    with pytest.raises(ValueError, match="out_channels must not be empty"):
        L.MLPConvolution2D(3, (), 1)
