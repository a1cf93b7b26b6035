"""Tests of L.StatelessGRU, L.StatefulGRU and L.GRU."""

import numpy as np
import pytest

import kusari
import kusari.functions as F
import kusari.links as L
from kusari import gradient_check


def _sigmoid(x):
    return 0.5 * np.tanh(0.5 * x) + 0.5


def _lin(link, x):
    return x @ link.W.array.T + link.b.array


def _ref(g, h, x):
    r = _sigmoid(_lin(g.W_r, x) + _lin(g.U_r, h))
    z = _sigmoid(_lin(g.W_z, x) + _lin(g.U_z, h))
    hb = np.tanh(_lin(g.W, x) + _lin(g.U, r * h))
    return z * hb + (1 - z) * h


def test_params_like_chainer():
    g = L.StatefulGRU(3, 4)
    shapes = {n: p.shape for n, p in g.namedparams()}
    expect = {}
    for name, fan_in in [
        ("W_r", 3),
        ("U_r", 4),
        ("W_z", 3),
        ("U_z", 4),
        ("W", 3),
        ("U", 4),
    ]:
        expect[f"/{name}/W"] = (4, fan_in)
        expect[f"/{name}/b"] = (4,)
    assert shapes == expect


def test_stateless_matches_reference():
    rng = np.random.default_rng(0)
    g = L.StatelessGRU(3, 4)
    h = rng.standard_normal((2, 4)).astype(np.float32)
    x = rng.standard_normal((2, 3)).astype(np.float32)
    np.testing.assert_allclose(g(h, x).array, _ref(g, h, x), atol=1e-5)


def test_stateful_state_handling():
    rng = np.random.default_rng(1)
    g = L.StatefulGRU(3, 4)
    x = rng.standard_normal((2, 3)).astype(np.float32)
    y0 = g(x)
    z = _sigmoid(_lin(g.W_z, x))
    np.testing.assert_allclose(y0.array, z * np.tanh(_lin(g.W, x)), atol=1e-5)
    y1 = g(x)
    np.testing.assert_allclose(y1.array, _ref(g, y0.array, x), atol=1e-5)
    g.reset_state()
    assert g.h is None
    h = kusari.Variable(np.ones((2, 4), np.float32))
    g.set_state(h)
    np.testing.assert_allclose(g(x).array, _ref(g, h.array, x), atol=1e-5)
    g.to_device("@numpy")
    assert isinstance(g.h.array, np.ndarray)


def test_gru_alias_arguments():
    g = L.GRU(3, 4)
    assert g(np.zeros((1, 3), np.float32)).shape == (1, 4)
    with pytest.raises(ValueError, match="StatelessGRU"):
        g(np.zeros((1, 4), np.float32), np.zeros((1, 3), np.float32))
    with pytest.raises(ValueError):
        g()


def test_gradient():
    rng = np.random.default_rng(2)
    g = L.StatelessGRU(2, 3)
    for p in g.params():
        p.array = p.array.astype(np.float64)
    h = rng.standard_normal((2, 3))
    x = rng.standard_normal((2, 2))
    gradient_check.check_backward(
        lambda h_, x_: g(g(h_, x_), x_),
        (h, x),
        rng.standard_normal((2, 3)),
        params=list(g.params()),
        atol=1e-4,
        rtol=1e-4,
        dtype=np.float64,
    )


def test_training_reduces_loss():
    rng = np.random.default_rng(3)
    g = L.StatefulGRU(2, 4)
    xs = [rng.standard_normal((5, 2)).astype(np.float32) for _ in range(3)]
    target = np.tanh(xs[0][:, :1] + xs[2][:, 1:]).repeat(4, 1).astype(np.float32) * 0.5

    def loss_fn():
        g.reset_state()
        for x in xs:
            h = g(x)
        return F.mean_squared_error(h, target)

    first = float(loss_fn().array)
    for _ in range(50):
        g.cleargrads()
        loss = loss_fn()
        loss.backward()
        for p in g.params():
            p.array -= 0.2 * p.grad
    assert float(loss_fn().array) < 0.7 * first
