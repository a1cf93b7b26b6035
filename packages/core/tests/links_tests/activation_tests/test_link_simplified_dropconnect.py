"""Tests of L.SimplifiedDropconnect."""

import numpy as np

import kusari.functions as F
import kusari.links as L
from kusari import gradient_check


def _x(shape, seed=0, dtype=np.float32):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def test_params_and_not_train_is_linear():
    layer = L.SimplifiedDropconnect(3, 2, ratio=0.3)
    assert layer.W.shape == (2, 3) and layer.b.shape == (2,) and layer.ratio == 0.3
    x = _x((4, 3))
    y = layer(x, train=False)
    np.testing.assert_allclose(y.array, x @ layer.W.array.T, rtol=1e-5, atol=1e-6)


def test_given_mask_matches_function_and_is_persistent():
    layer = L.SimplifiedDropconnect(3, 2, ratio=0.5)
    x = _x((4, 3))
    mask = np.random.default_rng(1).integers(0, 2, (4, 2, 3)).astype(np.float32)
    y = layer(x, mask=mask)
    expect = F.simplified_dropconnect(x, layer.W, layer.b, 0.5, True, mask).array
    np.testing.assert_allclose(y.array, expect, rtol=1e-6)
    assert "mask" in layer._persistent


def test_random_mask_lazy_and_nobias():
    layer = L.SimplifiedDropconnect(None, 3, nobias=True)
    y = layer(_x((5, 2, 2)))
    assert y.shape == (5, 3) and layer.W.shape == (3, 4) and layer.b is None
    assert layer(_x((5, 4)), use_batchwise_mask=False).shape == (5, 3)


def test_gradient():
    layer = L.SimplifiedDropconnect(3, 2)
    for p in layer.params():
        p.array = p.array.astype(np.float64)
    mask = np.random.default_rng(2).integers(0, 2, (2, 2, 3)).astype(np.float64)
    rng = np.random.default_rng(3)
    gradient_check.check_backward(
        lambda x: layer(x, mask=mask),
        rng.standard_normal((2, 3)),
        rng.standard_normal((2, 2)),
        params=list(layer.params()),
        atol=1e-6,
        rtol=1e-5,
    )
