"""Tests of kusari.link_hooks.WeightStandardization."""

from __future__ import annotations

import numpy as np
import pytest

import kusari
import kusari.functions as F
import kusari.links as L
from kusari import gradient_check
from kusari.link_hooks import WeightStandardization
from kusari.link_hooks.weight_standardization import _standardize


def _reference(W: np.ndarray, eps: float) -> np.ndarray:
    flat = W.reshape(len(W), -1).astype(np.float64)
    mu = flat.mean(axis=1, keepdims=True)
    std = np.sqrt(((flat - mu) ** 2).mean(axis=1, keepdims=True))
    return ((flat - mu) / (std + eps)).reshape(W.shape)


def test_convolution_forward_uses_standardized_weight() -> None:
    rng = np.random.default_rng(0)
    conv = L.Convolution2D(3, 4, 3, pad=1)
    raw = conv.W.array.copy()
    conv.add_hook(WeightStandardization())
    x = rng.standard_normal((2, 3, 5, 5)).astype(np.float32)
    y = conv(x)
    W_hat = _reference(raw, 1e-6).astype(np.float32)
    expected = F.convolution_2d(x, W_hat, conv.b, pad=1)
    np.testing.assert_allclose(y.array, expected.array, atol=1e-5, rtol=1e-5)
    assert isinstance(conv.W, kusari.Parameter)
    np.testing.assert_array_equal(conv.W.array, raw)


def test_gradient_reaches_raw_parameter_linear() -> None:
    rng = np.random.default_rng(1)
    layer = L.Linear(4, 3, initialW=rng.standard_normal((3, 4)), nobias=True)
    layer.W.array = layer.W.array.astype(np.float64)
    layer.add_hook(WeightStandardization())
    x = rng.standard_normal((2, 4))
    gy = rng.standard_normal((2, 3))
    gradient_check.check_backward(
        lambda x: layer(x),
        x,
        gy,
        params=(layer.W,),
        atol=1e-6,
        rtol=1e-5,
        dtype=np.float64,
    )


@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 2, 2)])
def test_standardize_double_backward(shape: tuple[int, ...]) -> None:
    rng = np.random.default_rng(2)
    x = rng.standard_normal(shape)
    gy = rng.standard_normal(shape)
    ggx = rng.standard_normal(shape)
    gradient_check.check_backward(
        lambda x: _standardize(x, 1e-6), x, gy, dtype=np.float64
    )
    gradient_check.check_double_backward(
        lambda x: _standardize(x, 1e-6), x, gy, ggx, dtype=np.float64
    )


def test_constant_row_has_finite_gradient() -> None:
    x = kusari.Variable(np.array([[1.0, 1.0, 1.0], [0.0, 1.0, 2.0]], np.float32))
    y = _standardize(x, 1e-6)
    np.testing.assert_array_equal(y.array[0], [0, 0, 0])
    (gx,) = kusari.grad(
        [F.sum(y * np.arange(6, dtype=np.float32).reshape(2, 3))],
        [x],
        enable_double_backprop=True,
    )
    assert np.isfinite(gx.array).all()
    (ggx,) = kusari.grad([F.sum(gx * gx)], [x])
    assert np.isfinite(ggx.array).all()


def test_float16_keeps_dtype() -> None:
    y = _standardize(
        np.random.default_rng(0).standard_normal((2, 5)).astype(np.float16), 1e-6
    )
    assert y.dtype == np.float16


def test_lazy_initialization_and_delete() -> None:
    conv = L.Convolution2D(None, 2, 3)
    hook = WeightStandardization()
    conv.add_hook(hook)
    assert conv.W.array is None
    conv(np.ones((1, 5, 4, 4), np.float32))
    assert conv.W.shape == (2, 5, 3, 3)
    assert isinstance(conv.W, kusari.Parameter)
    conv.delete_hook("WeightStandardization")
    conv(np.ones((1, 5, 4, 4), np.float32))


def test_errors() -> None:
    with pytest.raises(ValueError, match="has no weight 'V'"):
        L.Linear(2, 2).add_hook(WeightStandardization(weight_name="V"))
    with pytest.raises(NotImplementedError, match="context manager"):
        with WeightStandardization():
            pass


def test_custom_name_and_eps() -> None:
    layer = L.Linear(3, 2)
    raw = layer.W.array.copy()
    layer.add_hook(WeightStandardization(eps=0.5, name="ws"))
    assert "ws" in layer.local_link_hooks
    x = np.eye(3, dtype=np.float32)
    y = layer(x)
    np.testing.assert_allclose(y.array, _reference(raw, 0.5).T, rtol=1e-5, atol=1e-6)
