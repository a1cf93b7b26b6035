"""Tests of L.LSTM and L.StatelessLSTM."""

import numpy as np
import pytest

import kusari
import kusari.functions as F
import kusari.links as L
from kusari import gradient_check


def _sigmoid(x):
    return 0.5 * np.tanh(0.5 * x) + 0.5


def _ref_step(link, c, h, x):
    z = x @ link.upward.W.array.T + link.upward.b.array
    if h is not None:
        z = z + h @ link.lateral.W.array.T
    r = z.reshape(len(x), -1, 4)
    a, i, f, o = (r[:, :, g] for g in range(4))
    c = np.tanh(a) * _sigmoid(i) + _sigmoid(f) * c
    return c, _sigmoid(o) * np.tanh(c)


def test_params_like_chainer():
    link = L.LSTM(3, 5)
    names = {n: p.shape for n, p in link.namedparams()}
    assert names == {"/upward/W": (20, 3), "/upward/b": (20,), "/lateral/W": (20, 5)}
    # forget gate bias 1, the others 0 (interleaved layout: column 4k + 2 is f)
    b = link.upward.b.array.reshape(5, 4)
    np.testing.assert_array_equal(b[:, 2], 1)
    np.testing.assert_array_equal(b[:, [0, 1, 3]], 0)


def test_init_arguments():
    link = L.LSTM(
        2, 3, lateral_init=0.5, upward_init=0.25, bias_init=0.1, forget_bias_init=-1.0
    )
    np.testing.assert_array_equal(link.lateral.W.array, 0.5)
    np.testing.assert_array_equal(link.upward.W.array, 0.25)
    b = link.upward.b.array.reshape(3, 4)
    np.testing.assert_allclose(b[:, 2], -1.0)
    np.testing.assert_allclose(b[:, [0, 1, 3]], 0.1)


def test_stateful_sequence_matches_reference():
    rng = np.random.default_rng(0)
    link = L.LSTM(3, 4)
    xs = [rng.standard_normal((3, 3)).astype(np.float32) for _ in range(2)]
    xs.append(rng.standard_normal((2, 3)).astype(np.float32))  # the batch shrinks
    c = np.zeros((3, 4), np.float32)
    h = None
    for x in xs:
        y = link(x)
        n = len(x)
        c_new, h_new = _ref_step(link, c[:n], None if h is None else h[:n], x)
        c = np.concatenate([c_new, c[n:]])
        h = h_new if h is None else np.concatenate([h_new, h[n:]])
        np.testing.assert_allclose(y.array, h_new, atol=1e-5)
    np.testing.assert_allclose(link.c.array, c, atol=1e-5)
    np.testing.assert_allclose(link.h.array, h, atol=1e-5)
    with pytest.raises(TypeError, match="batch size"):
        link(np.zeros((4, 3), np.float32))


def test_reset_and_set_state():
    link = L.LSTM(3, 4)
    link(np.ones((2, 3), np.float32))
    assert link.h is not None
    link.reset_state()
    assert link.c is None and link.h is None
    c = kusari.Variable(np.ones((2, 4), np.float32))
    h = kusari.Variable(np.zeros((2, 4), np.float32))
    link.set_state(c, h)
    x = np.ones((2, 3), np.float32)
    expect = _ref_step(link, c.array, h.array, x)[1]
    np.testing.assert_allclose(link(x).array, expect, atol=1e-5)
    with pytest.raises(TypeError):
        link.set_state(np.ones((2, 4)), h)


def test_to_device_moves_state():
    link = L.LSTM(3, 4)
    link(np.ones((2, 3), np.float32))
    link.to_device("@numpy")
    assert isinstance(link.h.array, np.ndarray) and isinstance(link.c.array, np.ndarray)


def test_lazy_in_size():
    link = L.LSTM(4)
    assert link.upward.W.array is None
    assert link(np.zeros((2, 6), np.float32)).shape == (2, 4)
    assert link.upward.W.shape == (16, 6)
    b = link.upward.b.array.reshape(4, 4)
    np.testing.assert_array_equal(b[:, 2], 1)


def test_gradient_through_sequence():
    rng = np.random.default_rng(1)
    link = L.LSTM(2, 3)
    for p in link.params():
        p.array = p.array.astype(np.float64)
    xs = [rng.standard_normal((2, 2)) for _ in range(3)]

    def f(*xs_):
        link.reset_state()
        return (F.sum(sum(link(x) for x in xs_) * 1.0),)

    gradient_check.check_backward(
        f,
        xs,
        np.ones((), np.float64),
        params=list(link.params()),
        atol=1e-4,
        rtol=1e-4,
        dtype=np.float64,
    )


def test_stateless():
    link = L.StatelessLSTM(3, 4)
    x = np.random.default_rng(2).standard_normal((2, 3)).astype(np.float32)
    c, h = link(None, None, x)
    rc, rh = _ref_step(link, np.zeros((2, 4), np.float32), None, x)
    np.testing.assert_allclose(c.array, rc, atol=1e-5)
    c2, h2 = link(c, h, x)
    rc2, rh2 = _ref_step(link, rc, rh, x)
    np.testing.assert_allclose(h2.array, rh2, atol=1e-5)
    lazy = L.StatelessLSTM(4)
    assert lazy(None, None, x)[1].shape == (2, 4)


def test_training_reduces_loss():
    rng = np.random.default_rng(3)
    model = kusari.Chain()
    with model.init_scope():
        model.rnn = L.LSTM(2, 8)
        model.out = L.Linear(8, 1)
    xs = [rng.standard_normal((4, 2)).astype(np.float32) for _ in range(4)]
    target = np.cumsum([x.sum(1, keepdims=True) for x in xs], axis=0)[-1] * 0.1

    def loss_fn():
        model.rnn.reset_state()
        h = None
        for x in xs:
            h = model.rnn(x)
        return F.mean_squared_error(model.out(h), target.astype(np.float32))

    first = float(loss_fn().array)
    for _ in range(60):
        model.cleargrads()
        loss = loss_fn()
        loss.backward()
        for p in model.params():
            p.array -= 0.1 * p.grad
    assert float(loss_fn().array) < 0.5 * first
