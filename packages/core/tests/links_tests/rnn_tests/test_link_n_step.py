"""Tests of the NStep* links (LSTM, GRU, RNN; uni- and bi-directional)."""

import os
import sys

import numpy as np
import pytest

import kusari
import kusari.functions as F
import kusari.links as L
from kusari import gradient_check

sys.path.insert(
    0,
    os.path.join(os.path.dirname(__file__), "..", "..", "functions_tests", "rnn_tests"),
)
from _rnn_ref import n_step

CASES = [
    (L.NStepLSTM, "lstm", 8, False),
    (L.NStepBiLSTM, "lstm", 8, True),
    (L.NStepGRU, "gru", 6, False),
    (L.NStepBiGRU, "gru", 6, True),
    (L.NStepRNNTanh, "rnn_tanh", 2, False),
    (L.NStepRNNReLU, "rnn_relu", 2, False),
    (L.NStepBiRNNTanh, "rnn_tanh", 2, True),
    (L.NStepBiRNNReLU, "rnn_relu", 2, True),
]


def _call(link, hx, cx, xs):
    if link.use_cell:
        return link(hx, cx, xs)
    hy, ys = link(hx, xs)
    return hy, None, ys


def _reference(link, mode, hx, cx, xs):
    """Sort, transpose, run the NumPy loop, undo."""
    order = np.argsort([-len(x) for x in xs], kind="stable")
    sx = [xs[i] for i in order]
    T = len(sx[0])
    tx = [np.stack([s[t] for s in sx if len(s) > t]) for t in range(T)]
    ws = [[w.array for w in layer] for layer in link.ws]
    bs = [[b.array for b in layer] for layer in link.bs]
    hy, cy, ys = n_step(
        mode,
        link.n_layers,
        hx[:, order],
        None if cx is None else cx[:, order],
        ws,
        bs,
        tx,
        link.use_bi_direction,
    )
    inv = np.argsort(order)
    out = [np.stack([ys[t][k] for t in range(len(sx[k]))]) for k in range(len(xs))]
    return hy[:, inv], None if cy is None else cy[:, inv], [out[i] for i in inv]


@pytest.mark.parametrize("cls,mode,n_w,bi", CASES)
def test_params_like_chainer(cls, mode, n_w, bi):
    link = cls(2, 3, 4, 0.0)
    d = 2 if bi else 1
    assert len(link) == 2 * d
    shapes = {n: p.shape for n, p in link.namedparams()}
    expect = {}
    for k in range(2 * d):
        for j in range(n_w):
            w_in = 3 if k < d else 4 * d
            expect[f"/{k}/w{j}"] = (4, w_in if j < n_w // 2 else 4)
            expect[f"/{k}/b{j}"] = (4,)
    assert shapes == expect
    assert link.ws[0][0] is link[0].w0 and link.bs[-1][-1] is getattr(
        link[-1], f"b{n_w - 1}"
    )


@pytest.mark.parametrize("cls,mode,n_w,bi", CASES)
def test_forward_unsorted_lengths(cls, mode, n_w, bi):
    rng = np.random.default_rng(0)
    link = cls(2, 3, 4, 0.0)
    xs = [rng.standard_normal((n, 3)).astype(np.float32) for n in (2, 4, 1, 4)]
    d = 2 if bi else 1
    hx = rng.standard_normal((2 * d, 4, 4)).astype(np.float32)
    cx = (
        rng.standard_normal((2 * d, 4, 4)).astype(np.float32) if link.use_cell else None
    )
    hy, cy, ys = _call(link, hx, cx, xs)
    rhy, rcy, rys = _reference(link, mode, hx, cx, xs)
    np.testing.assert_allclose(hy.array, rhy, atol=1e-5)
    if cx is not None:
        np.testing.assert_allclose(cy.array, rcy, atol=1e-5)
    for y, ry in zip(ys, rys):
        assert y.shape == (len(ry), 4 * d)
        np.testing.assert_allclose(y.array, ry, atol=1e-5)
    # None initial states are zeros
    hy0, _, ys0 = _call(link, None, None, xs)
    z = np.zeros_like(hx)
    rhy0, _, _ = _reference(link, mode, z, None if cx is None else z, xs)
    np.testing.assert_allclose(hy0.array, rhy0, atol=1e-5)


@pytest.mark.parametrize("cls,mode,n_w,bi", CASES[:4])
def test_gradient(cls, mode, n_w, bi):
    rng = np.random.default_rng(1)
    link = cls(1, 2, 3, 0.0)
    for p in link.params():
        p.array = p.array.astype(np.float64)
    xs = [rng.standard_normal((n, 2)) for n in (1, 3, 2)]
    d = 2 if bi else 1

    def f(*xs_):
        hy, cy, ys = _call(link, None, None, list(xs_))
        return (hy,) + tuple(ys)

    gys = [rng.standard_normal((d, 3, 3))] + [
        rng.standard_normal((len(x), 3 * d)) for x in xs
    ]
    gradient_check.check_backward(
        f,
        xs,
        tuple(gys),
        params=list(link.params()),
        atol=1e-4,
        rtol=1e-4,
        dtype=np.float64,
    )


def test_dropout_train_and_test():
    rng = np.random.default_rng(2)
    link = L.NStepLSTM(2, 3, 4, 0.5)
    xs = [rng.standard_normal((3, 3)).astype(np.float32) for _ in range(2)]
    with kusari.using_config("train", False):
        a = link(None, None, xs)[2][0].array
        b = link(None, None, xs)[2][0].array
    np.testing.assert_array_equal(a, b)
    with kusari.using_config("train", True):
        c = link(None, None, xs)[2][0].array
    assert not np.allclose(a, c)
    with pytest.raises(ValueError, match="train"):
        link(None, None, xs, train=True)


def test_to_device_and_training_run():
    rng = np.random.default_rng(3)
    model = kusari.Chain()
    with model.init_scope():
        model.rnn = L.NStepGRU(1, 2, 6, 0.0)
        model.out = L.Linear(6, 1)
    model.to_device("@numpy")
    xs = [rng.standard_normal((n, 2)).astype(np.float32) for n in (4, 3, 2, 4)]
    target = np.array([[x[:, 0].sum() * 0.3] for x in xs], np.float32)

    def loss_fn():
        hy, _ = model.rnn(None, xs)
        return F.mean_squared_error(model.out(hy[-1]), target)

    first = float(loss_fn().array)
    for _ in range(60):
        model.cleargrads()
        loss = loss_fn()
        loss.backward()
        for p in model.params():
            p.array -= 0.2 * p.grad
    assert float(loss_fn().array) < 0.5 * first


def test_initializers_and_npz_names(tmp_path):
    link = L.NStepLSTM(1, 3, 4, 0.0, initialW=0.5, initial_bias=0.25)
    np.testing.assert_array_equal(link[0].w7.array, 0.5)
    np.testing.assert_array_equal(link[0].b0.array, 0.25)
    # a file with Chainer's parameter names loads
    arrays = {
        f"0/w{j}": np.full((4, 3 if j < 4 else 4), j, np.float32) for j in range(8)
    }
    arrays.update({f"0/b{j}": np.full((4,), -j, np.float32) for j in range(8)})
    path = tmp_path / "nstep.npz"
    np.savez(path, **arrays)
    from kusari import serializers

    serializers.load_npz(str(path), link)
    np.testing.assert_array_equal(link[0].w5.array, 5)
    np.testing.assert_array_equal(link[0].b3.array, -3)
