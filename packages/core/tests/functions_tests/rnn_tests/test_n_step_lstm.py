"""Tests of F.n_step_lstm / F.n_step_bilstm against a per-time-step NumPy loop."""

import numpy as np
import pytest
from _rnn_ref import flat_shapes, n_step, unflatten

import kusari
import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check

N_W = 8


def _shapes(n_layers, bi, in_size, hidden, batches):
    return flat_shapes(N_W, True, n_layers, bi, in_size, hidden, batches)


def _unflatten(args, n_layers, bi, n_steps):
    return unflatten(args, N_W, True, n_layers, bi, n_steps)


@pytest.mark.parametrize(
    "n_layers,bi,batches",
    [
        (1, False, [3, 2, 2, 1]),
        (2, False, [2, 2, 1]),
        (2, True, [3, 1, 1]),
    ],
)
def test_n_step_lstm(n_layers, bi, batches, float_dtype, device):
    fn = F.n_step_bilstm if bi else F.n_step_lstm
    T = len(batches)

    def op(*args):
        hx, cx, xs, ws, bs = _unflatten(args, n_layers, bi, T)
        hy, cy, ys = fn(n_layers, 0.0, hx, cx, ws, bs, xs)
        return (hy, cy) + tuple(ys)

    def ref(*args):
        hx, cx, xs, ws, bs = _unflatten(args, n_layers, bi, T)
        hy, cy, ys = n_step("lstm", n_layers, hx, cx, ws, bs, xs, bi)
        return (hy, cy) + tuple(ys)

    tol = (
        {
            "forward": (5e-2, 5e-2),
            "backward": (1e-1, 1e-1),
            "double_backward": (2e-1, 2e-1),
        }
        if float_dtype == np.float16
        else None
    )
    check_op(
        op,
        ref,
        _shapes(n_layers, bi, 3, 2, batches),
        dtype=float_dtype,
        device=device,
        tolerances=tol,
    )


def test_n_step_lstm_dropout_train_and_test():
    rng = np.random.default_rng(0)
    shapes = _shapes(2, False, 4, 3, [2, 2])
    args = [rng.uniform(-1, 1, s).astype(np.float32) for s in shapes]
    hx, cx, xs, ws, bs = _unflatten(args, 2, False, 2)
    ref_hy, ref_cy, ref_ys = n_step("lstm", 2, hx, cx, ws, bs, xs, False)
    with kusari.using_config("train", False):
        hy, cy, ys = F.n_step_lstm(2, 0.5, hx, cx, ws, bs, xs)
    np.testing.assert_allclose(hy.array, ref_hy, atol=1e-5)
    np.testing.assert_allclose(ys[1].array, ref_ys[1], atol=1e-5)
    # training mode: the second layer's input is dropped -> different outputs,
    # while the first layer's states are unaffected
    with kusari.using_config("train", True):
        hy, cy, ys = F.n_step_lstm(2, 0.9, hx, cx, ws, bs, xs)
    np.testing.assert_allclose(hy.array[0], ref_hy[0], atol=1e-5)
    assert not np.allclose(hy.array[1], ref_hy[1], atol=1e-5)


def test_n_step_lstm_no_input_grad():
    # inputs given as plain arrays: only the parameters get gradients
    rng = np.random.default_rng(3)
    shapes = _shapes(1, False, 3, 2, [2, 1])
    args = [rng.uniform(-1, 1, s).astype(np.float32) for s in shapes]
    hx, cx, xs, ws, bs = _unflatten(args, 1, False, 2)
    ws = [[kusari.Variable(w) for w in ws[0]]]
    hy, cy, ys = F.n_step_lstm(1, 0.0, hx, cx, ws, bs, xs)
    F.sum(hy).backward()
    assert all(w.grad is not None for w in ws[0])


def test_n_step_lstm_errors():
    shapes = _shapes(1, False, 3, 2, [2, 3])
    args = [np.zeros(s, np.float32) for s in shapes]
    hx, cx, xs, ws, bs = _unflatten(args, 1, False, 2)
    with pytest.raises(ValueError, match="must not increase"):
        F.n_step_lstm(1, 0.0, hx, cx, ws, bs, xs)
    with pytest.raises(ValueError, match="inconsistent input size"):
        F.n_step_lstm(1, 0.0, hx, cx, ws, bs, [np.zeros((3, 4), np.float32)])
    with pytest.raises(type_check.InvalidType):
        F.n_step_lstm(1, 0.0, hx, cx, ws, bs, [x.astype(np.float64) for x in xs[:1]])
    with pytest.raises(ValueError, match="train argument"):
        F.n_step_lstm(1, 0.0, hx, cx, ws, bs, xs[1:], train=True)
