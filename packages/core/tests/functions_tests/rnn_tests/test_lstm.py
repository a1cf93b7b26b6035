"""Tests of F.lstm: Chainer's gate layout, batch shrinking, double backprop."""

import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


def _sigmoid(x):
    return 0.5 * np.tanh(0.5 * x) + 0.5


def _lstm_ref(c_prev, x):
    batch = x.shape[0]
    r = x.reshape((batch, x.shape[1] // 4, 4) + x.shape[2:])
    a, i, f, o = (r[:, :, g] for g in range(4))
    c_new = np.tanh(a) * _sigmoid(i) + _sigmoid(f) * c_prev[:batch]
    h = _sigmoid(o) * np.tanh(c_new)
    c = np.concatenate([c_new, c_prev[batch:]], axis=0)
    return c, h


@pytest.mark.parametrize(
    "c_shape,x_shape",
    [
        ((3, 4), (3, 16)),
        ((4, 2), (2, 8)),  # x batch smaller than c: the rest passes through
        ((2, 3, 2), (2, 12, 2)),  # trailing axes
    ],
)
def test_lstm(c_shape, x_shape, float_dtype, device):
    check_op(F.lstm, _lstm_ref, [c_shape, x_shape], dtype=float_dtype, device=device)


def test_lstm_gate_layout():
    # unit k of gate g is column 4k + g: a, i, f, o interleaved
    x = np.zeros((1, 8), np.float32)
    x[0, 1::4] = 100.0  # i -> 1
    x[0, 2::4] = -100.0  # f -> 0
    x[0, 3::4] = 100.0  # o -> 1
    x[0, 0] = 0.5  # a of unit 0
    c, h = F.lstm(np.ones((1, 2), np.float32), x)
    np.testing.assert_allclose(c.array, [[np.tanh(0.5), 0.0]], atol=1e-6)
    np.testing.assert_allclose(h.array, np.tanh(c.array), atol=1e-6)


def test_lstm_only_h_used():
    # backward with gc None (only h used downstream)
    c0 = kusari.Variable(np.random.rand(2, 3).astype(np.float32))
    x = kusari.Variable(np.random.rand(2, 12).astype(np.float32))
    c, h = F.lstm(c0, x)
    F.sum(h).backward()
    assert c0.grad.shape == (2, 3) and x.grad.shape == (2, 12)


def test_lstm_invalid():
    with pytest.raises(type_check.InvalidType):
        F.lstm(np.zeros((2, 3), np.float32), np.zeros((2, 10), np.float32))
    with pytest.raises(type_check.InvalidType):
        F.lstm(np.zeros((2, 3), np.float32), np.zeros((3, 12), np.float32))
