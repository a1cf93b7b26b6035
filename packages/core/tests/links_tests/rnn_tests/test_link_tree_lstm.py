"""Tests of L.ChildSumTreeLSTM and L.NaryTreeLSTM."""

import numpy as np

import kusari.links as L
from kusari import gradient_check


def _sigmoid(x):
    return 0.5 * np.tanh(0.5 * x) + 0.5


def _lin(link, x):
    y = x @ link.W.array.T
    return y if link.b is None else y + link.b.array


def _tree_ref(cs, z, H):
    n = len(cs)
    g = z.reshape(len(z), 3 + n, H)
    c = np.tanh(g[:, 0]) * _sigmoid(g[:, 1])
    for k, ck in enumerate(cs):
        c = c + _sigmoid(g[:, 3 + k]) * ck
    return c, _sigmoid(g[:, 2]) * np.tanh(c)


def test_child_sum():
    rng = np.random.default_rng(0)
    t = L.ChildSumTreeLSTM(3, 4)
    assert {n: p.shape for n, p in t.namedparams()} == {
        "/W_x/W": (16, 3),
        "/W_x/b": (16,),
        "/W_h_aio/W": (12, 4),
        "/W_h_f/W": (4, 4),
    }
    c1, c2, h1, h2 = (rng.standard_normal((2, 4)).astype(np.float32) for _ in range(4))
    x = rng.standard_normal((2, 3)).astype(np.float32)
    c, h = t(c1, c2, h1, h2, x)
    wx = _lin(t.W_x, x)
    aio = _lin(t.W_h_aio, h1 + h2) + wx[:, :12]
    fs = [_lin(t.W_h_f, hk) + wx[:, 12:] for hk in (h1, h2)]
    rc, rh = _tree_ref([c1, c2], np.concatenate([aio] + fs, 1), 4)
    np.testing.assert_allclose(c.array, rc, atol=1e-5)
    np.testing.assert_allclose(h.array, rh, atol=1e-5)
    # a leaf (no children)
    c, h = t(x)
    a, i, o = np.split(wx[:, :12], 3, axis=1)
    rc = _sigmoid(i) * np.tanh(a)
    np.testing.assert_allclose(c.array, rc, atol=1e-5)
    np.testing.assert_allclose(h.array, _sigmoid(o) * np.tanh(rc), atol=1e-5)


def test_nary():
    rng = np.random.default_rng(1)
    t = L.NaryTreeLSTM(3, 4, n_ary=2)
    assert {n: p.shape for n, p in t.namedparams()} == {
        "/W_x/W": (20, 3),
        "/W_x/b": (20,),
        "/W_h1/W": (20, 4),
        "/W_h2/W": (20, 4),
    }
    c1, c2, h1, h2 = (rng.standard_normal((2, 4)).astype(np.float32) for _ in range(4))
    x = rng.standard_normal((2, 3)).astype(np.float32)
    c, h = t(c1, c2, h1, h2, x)
    z = _lin(t.W_x, x) + _lin(t.W_h1, h1) + _lin(t.W_h2, h2)
    rc, rh = _tree_ref([c1, c2], z, 4)
    np.testing.assert_allclose(h.array, rh, atol=1e-5)
    # missing children count as zeros
    c, h = t(None, c2, None, h2, x)
    z = _lin(t.W_x, x) + _lin(t.W_h2, h2)
    rc, rh = _tree_ref([np.zeros_like(c2), c2], z, 4)
    np.testing.assert_allclose(c.array, rc, atol=1e-5)
    # a None x counts as zeros
    c, h = t(c1, c2, h1, h2, None)
    z = t.W_x.b.array + _lin(t.W_h1, h1) + _lin(t.W_h2, h2)
    rc, rh = _tree_ref([c1, c2], z, 4)
    np.testing.assert_allclose(h.array, rh, atol=1e-5)


def test_child_sum_none_x():
    rng = np.random.default_rng(3)
    t = L.ChildSumTreeLSTM(3, 4)
    c1, h1 = (rng.standard_normal((2, 4)).astype(np.float32) for _ in range(2))
    c, h = t(c1, h1, None)
    c0, h0 = t(c1, h1, np.zeros((2, 3), np.float32))
    np.testing.assert_allclose(h.array, h0.array)


def test_tree_gradient():
    rng = np.random.default_rng(2)
    t = L.NaryTreeLSTM(2, 3, n_ary=2)
    for p in t.params():
        p.array = p.array.astype(np.float64)
    args = [rng.standard_normal((2, 3)) for _ in range(4)] + [
        rng.standard_normal((2, 2))
    ]
    gradient_check.check_backward(
        lambda *a: t(*a),
        args,
        (rng.standard_normal((2, 3)), rng.standard_normal((2, 3))),
        params=list(t.params()),
        atol=1e-4,
        rtol=1e-4,
        dtype=np.float64,
    )
