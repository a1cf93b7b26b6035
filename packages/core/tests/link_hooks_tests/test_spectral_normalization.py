"""Tests of kusari.link_hooks.SpectralNormalization."""

from __future__ import annotations

import numpy as np
import pytest

import kusari
import kusari.functions as F
import kusari.links as L
from kusari import gradient_check, serializers
from kusari.link_hooks import SpectralNormalization


def _sigma(W: np.ndarray, axis: int = 0) -> float:
    W = np.moveaxis(W, axis, 0)
    return float(
        np.linalg.svd(W.reshape(len(W), -1).astype(np.float64), compute_uv=False)[0]
    )


def test_linear_forward_divides_by_largest_singular_value() -> None:
    rng = np.random.default_rng(0)
    layer = L.Linear(5, 4)
    raw = layer.W.array.copy()
    layer.add_hook(SpectralNormalization(n_power_iteration=30))
    x = rng.standard_normal((3, 5)).astype(np.float32)
    y = layer(x)
    expected = x @ (raw / _sigma(raw)).T
    np.testing.assert_allclose(y.array, expected, rtol=1e-4, atol=1e-5)
    # The link's weight stays the raw parameter.
    assert isinstance(layer.W, kusari.Parameter)
    np.testing.assert_array_equal(layer.W.array, raw)


def test_u_is_a_persistent_updated_in_training_only() -> None:
    layer = L.Linear(6, 3).add_hook(SpectralNormalization())
    assert layer.W_u.shape == (3,)
    assert layer.W_u.dtype == np.float32
    assert "W_u" in layer._persistent
    assert "W_u" not in [name for name, _ in layer.namedparams()]
    u0 = layer.W_u.copy()
    x = np.ones((2, 6), np.float32)
    with kusari.using_config("train", False):
        layer(x)
    np.testing.assert_array_equal(layer.W_u, u0)
    layer(x)
    assert not np.array_equal(layer.W_u, u0)
    np.testing.assert_allclose(np.linalg.norm(layer.W_u), 1, rtol=1e-5)


def test_u_converges_to_left_singular_vector() -> None:
    layer = L.Linear(6, 3).add_hook(SpectralNormalization())
    x = np.ones((1, 6), np.float32)
    for _ in range(50):
        layer(x)
    u_true = np.linalg.svd(layer.W.array)[0][:, 0]
    np.testing.assert_allclose(abs(layer.W_u @ u_true), 1, atol=1e-4)


def test_serialization_round_trip(tmp_path) -> None:
    layer = L.Linear(4, 3).add_hook(SpectralNormalization())
    layer(np.ones((1, 4), np.float32))
    path = tmp_path / "sn.npz"
    serializers.save_npz(path, layer)
    assert "W_u" in np.load(path).files
    other = L.Linear(4, 3).add_hook(SpectralNormalization())
    serializers.load_npz(path, other)
    np.testing.assert_array_equal(other.W_u, layer.W_u)


def test_convolution_2d() -> None:
    rng = np.random.default_rng(1)
    conv = L.Convolution2D(3, 5, 3)
    raw = conv.W.array.copy()
    conv.add_hook(SpectralNormalization(n_power_iteration=50))
    assert conv.W_u.shape == (5,)
    x = rng.standard_normal((2, 3, 6, 6)).astype(np.float32)
    expected = F.convolution_2d(x, raw / _sigma(raw), conv.b).array
    np.testing.assert_allclose(conv(x).array, expected, rtol=1e-4, atol=1e-4)


def test_deconvolution_2d_uses_axis_1() -> None:
    rng = np.random.default_rng(2)
    deconv = L.Deconvolution2D(3, 5, 3)
    hook = SpectralNormalization(n_power_iteration=50)
    raw = deconv.W.array.copy()
    deconv.add_hook(hook)
    assert hook.axis == 1
    assert deconv.W_u.shape == (5,)
    x = rng.standard_normal((2, 3, 4, 4)).astype(np.float32)
    expected = F.deconvolution_2d(x, raw / _sigma(raw, axis=1), deconv.b).array
    np.testing.assert_allclose(deconv(x).array, expected, rtol=1e-4, atol=1e-4)


def test_gradient_check_on_tiny_linear() -> None:
    rng = np.random.default_rng(3)
    W = rng.standard_normal((3, 4))
    layer = L.Linear(4, 3, initialW=W, initial_bias=np.zeros(3))
    for p in layer.params():
        p.array = p.array.astype(np.float64)
    layer.add_hook(SpectralNormalization(n_power_iteration=5))
    for _ in range(40):  # converge u so that sigma(W) is exact
        layer(np.ones((1, 4)))
    x = rng.standard_normal((2, 4))
    gy = rng.standard_normal((2, 3))
    with kusari.using_config("train", False):
        gradient_check.check_backward(
            lambda x: layer(x),
            x,
            gy,
            params=(layer.W, layer.b),
            eps=1e-4,
            atol=1e-5,
            rtol=1e-4,
            dtype=np.float64,
        )


def test_use_gamma_and_factor() -> None:
    rng = np.random.default_rng(4)
    layer = L.Linear(4, 3)
    raw = layer.W.array.copy()
    layer.add_hook(
        SpectralNormalization(n_power_iteration=50, use_gamma=True, factor=2.0)
    )
    np.testing.assert_allclose(float(layer.gamma.array), _sigma(raw), rtol=1e-5)
    assert layer.gamma.shape == ()
    assert "gamma" in [name.lstrip("/") for name, _ in layer.namedparams()]
    x = rng.standard_normal((2, 4)).astype(np.float32)
    y = layer(x)
    # gamma * W / (sigma / 2) == 2 * W at initialization.
    np.testing.assert_allclose(
        y.array, x @ (2 * raw).T + layer.b.array, rtol=1e-4, atol=1e-4
    )
    F.sum(y).backward()
    assert layer.gamma.grad is not None and layer.W.grad is not None
    layer.delete_hook("SpectralNormalization")
    assert not hasattr(layer, "gamma") and not hasattr(layer, "W_u")
    assert "W_u" not in layer._persistent


def test_lazy_linear_with_image_input() -> None:
    layer = L.Linear(None, 3).add_hook(SpectralNormalization())
    assert not hasattr(layer, "W_u")
    y = layer(np.ones((2, 2, 3, 3), np.float32))
    assert y.shape == (2, 3)
    assert layer.W.shape == (3, 18)
    assert layer.W_u.shape == (3,)


def test_failed_forward_restores_weight() -> None:
    layer = L.Linear(4, 3).add_hook(SpectralNormalization())
    with pytest.raises(kusari.utils.type_check.InvalidType):
        layer(np.ones((2, 5), np.float32))
    layer(np.ones((2, 4), np.float32))
    assert isinstance(layer.W, kusari.Parameter)


def test_embed_id() -> None:
    embed = L.EmbedID(5, 3).add_hook(SpectralNormalization())
    assert embed.W_u.shape == (5,)
    assert embed(np.array([0, 4], np.int32)).shape == (2, 3)


def test_errors() -> None:
    with pytest.raises(ValueError, match="n_power_iteration"):
        SpectralNormalization(n_power_iteration=0)
    with pytest.raises(ValueError, match="no weight 'V'"):
        L.Linear(2, 2).add_hook(SpectralNormalization(weight_name="V"))
    with pytest.raises(NotImplementedError, match="context manager"):
        with SpectralNormalization():
            pass


def test_training_step_updates_raw_weight() -> None:
    from kusari import optimizers

    layer = L.Linear(4, 3).add_hook(SpectralNormalization(use_gamma=True))
    opt = optimizers.SGD(lr=0.1)
    opt.setup(layer)
    W0 = layer.W.array.copy()
    gamma0 = layer.gamma.array.copy()
    layer.cleargrads()
    loss = F.sum(layer(np.ones((2, 4), np.float32)) ** 2)
    loss.backward()
    opt.update()
    assert isinstance(layer.W, kusari.Parameter)
    assert not np.array_equal(layer.W.array, W0)
    assert not np.array_equal(layer.gamma.array, gamma0)
