"""Tests of F.tree_lstm (contiguous gate blocks a, i, o, f_1..f_N)."""

import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


def _sigmoid(x):
    return 0.5 * np.tanh(0.5 * x) + 0.5


def _tree_ref(*inputs):
    cs, x = inputs[:-1], inputs[-1]
    n = len(cs)
    g = x.reshape((x.shape[0], 3 + n, x.shape[1] // (3 + n)) + x.shape[2:])
    c = np.tanh(g[:, 0]) * _sigmoid(g[:, 1])
    for k, ck in enumerate(cs):
        c = c + _sigmoid(g[:, 3 + k]) * ck
    return c, _sigmoid(g[:, 2]) * np.tanh(c)


@pytest.mark.parametrize(
    "n,c_shape,x_shape",
    [(1, (3, 2), (3, 8)), (2, (3, 2), (3, 10)), (3, (2, 2, 2), (2, 12, 2))],
)
def test_tree_lstm(n, c_shape, x_shape, float_dtype, device):
    check_op(
        F.tree_lstm,
        _tree_ref,
        [c_shape] * n + [x_shape],
        dtype=float_dtype,
        device=device,
    )


def test_tree_lstm_invalid():
    c = np.zeros((2, 3), np.float32)
    with pytest.raises(type_check.InvalidType):
        F.tree_lstm(c, c, np.zeros((2, 12), np.float32))
    with pytest.raises(type_check.InvalidType):
        F.tree_lstm(np.zeros((2, 3)))
