"""Tests of the MGU links, L.StatefulPeepholeLSTM and L.StatefulZoneoutLSTM."""

import numpy as np
import pytest

import kusari
import kusari.links as L
from kusari import gradient_check


def _sigmoid(x):
    return 0.5 * np.tanh(0.5 * x) + 0.5


def _lin(link, x):
    y = x @ link.W.array.T
    return y if link.b is None else y + link.b.array


def _mgu_ref(m, h, x):
    f = _sigmoid(_lin(m.W_f, np.concatenate([h, x], 1)))
    hb = np.tanh(_lin(m.W_h, np.concatenate([f * h, x], 1)))
    return f * hb + (1 - f) * h


def test_mgu():
    rng = np.random.default_rng(0)
    m = L.StatelessMGU(3, 4)
    assert {n: p.shape for n, p in m.namedparams()} == {
        "/W_f/W": (4, 7),
        "/W_f/b": (4,),
        "/W_h/W": (4, 7),
        "/W_h/b": (4,),
    }
    h = rng.standard_normal((2, 4)).astype(np.float32)
    x = rng.standard_normal((2, 3)).astype(np.float32)
    np.testing.assert_allclose(m(h, x).array, _mgu_ref(m, h, x), atol=1e-5)

    s = L.StatefulMGU(3, 4)
    y0 = s(x)
    np.testing.assert_allclose(
        y0.array, _mgu_ref(s, np.zeros((2, 4), np.float32), x), atol=1e-5
    )
    np.testing.assert_allclose(s(x).array, _mgu_ref(s, y0.array, x), atol=1e-5)
    s.reset_state()
    assert s.h is None
    s.set_state(kusari.Variable(h))
    np.testing.assert_allclose(s(x).array, _mgu_ref(s, h, x), atol=1e-5)


def test_mgu_gradient():
    rng = np.random.default_rng(1)
    m = L.StatelessMGU(2, 3)
    for p in m.params():
        p.array = p.array.astype(np.float64)
    gradient_check.check_backward(
        m,
        (rng.standard_normal((2, 3)), rng.standard_normal((2, 2))),
        rng.standard_normal((2, 3)),
        params=list(m.params()),
        atol=1e-4,
        rtol=1e-4,
        dtype=np.float64,
    )


def _peephole_ref(p, c, h, x):
    z = _lin(p.upward, x)
    if h is not None:
        z = z + _lin(p.lateral, h)
    r = z.reshape(len(x), -1, 4)
    a, i, f, o = (r[:, :, g] for g in range(4))
    a = np.tanh(a)
    i = _sigmoid(i + _lin(p.peep_i, c))
    f = _sigmoid(f + _lin(p.peep_f, c))
    c = a * i + f * c
    o = _sigmoid(o + _lin(p.peep_o, c))
    return c, o * np.tanh(c)


def test_peephole():
    rng = np.random.default_rng(2)
    p = L.StatefulPeepholeLSTM(3, 4)
    assert {n: v.shape for n, v in p.namedparams()} == {
        "/upward/W": (16, 3),
        "/upward/b": (16,),
        "/lateral/W": (16, 4),
        "/peep_i/W": (4, 4),
        "/peep_f/W": (4, 4),
        "/peep_o/W": (4, 4),
    }
    x = rng.standard_normal((2, 3)).astype(np.float32)
    c, h = _peephole_ref(p, np.zeros((2, 4), np.float32), None, x)
    np.testing.assert_allclose(p(x).array, h, atol=1e-5)
    c, h = _peephole_ref(p, c, h, x)
    np.testing.assert_allclose(p(x).array, h, atol=1e-5)
    np.testing.assert_allclose(p.c.array, c, atol=1e-5)
    p.reset_state()
    assert p.c is None and p.h is None


def test_zoneout_test_mode_is_lstm():
    rng = np.random.default_rng(3)
    z = L.StatefulZoneoutLSTM(3, 4, c_ratio=0.3, h_ratio=0.7)
    assert {n: v.shape for n, v in z.namedparams()} == {
        "/upward/W": (16, 3),
        "/upward/b": (16,),
        "/lateral/W": (16, 4),
    }
    x = rng.standard_normal((2, 3)).astype(np.float32)
    with kusari.using_config("train", False):
        y = z(x)
        zin = _lin(z.upward, x).reshape(2, 4, 4)
        a, i, f, o = (zin[:, :, g] for g in range(4))
        c = np.tanh(a) * _sigmoid(i)
        np.testing.assert_allclose(y.array, _sigmoid(o) * np.tanh(c), atol=1e-5)


def test_zoneout_train_mixes_old_and_new():
    z = L.StatefulZoneoutLSTM(3, 50, c_ratio=0.5, h_ratio=0.5)
    c0 = kusari.Variable(np.full((4, 50), 7.0, np.float32))
    h0 = kusari.Variable(np.full((4, 50), 7.0, np.float32))
    z.set_state(c0, h0)
    z.lateral.W.array[...] = 0  # h0 then reaches h only through zoneout
    with kusari.using_config("train", True):
        h = z(np.ones((4, 3), np.float32))
    kept = h.array == 7.0
    assert 0 < kept.sum() < kept.size  # some units keep the old value
    h.grad = np.ones_like(h.array)
    h.backward()
    np.testing.assert_array_equal(h0.grad != 0, kept)
    with pytest.raises(ValueError, match="train"):
        L.StatefulZoneoutLSTM(3, 4, train=True)


def test_zoneout_nodes_show_both_masks():
    # As on Chainer's Zoneout node: flag_x marks the new value, flag_h the
    # kept one (the output is h * flag_h + x * flag_x).
    z = L.StatefulZoneoutLSTM(3, 6, c_ratio=0.5, h_ratio=0.5)
    x = np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32)
    z(x)
    h_prev = z.h.array.copy()
    h = z(x)
    node = h.creator
    np.testing.assert_array_equal(node.flag_h, 1 - node.flag_x)
    kept = node.flag_h == 1
    assert 0 < kept.sum() < kept.size
    np.testing.assert_array_equal(h.array[kept], h_prev[kept])
    assert z.c.creator.flag_h.shape == z.c.shape
