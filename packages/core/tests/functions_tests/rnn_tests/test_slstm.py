"""Tests of F.slstm."""

import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


def _sigmoid(x):
    return 0.5 * np.tanh(0.5 * x) + 0.5


def _gates(x):
    r = x.reshape((x.shape[0], x.shape[1] // 4, 4) + x.shape[2:])
    return [r[:, :, g] for g in range(4)]


def _slstm_ref(c1, c2, x1, x2):
    a1, i1, f1, o1 = _gates(x1)
    a2, i2, f2, o2 = _gates(x2)
    # Chainer v7's formula (its code, not its docstring): each child's input
    # gate scales that child's candidate.
    c = (
        np.tanh(a1) * _sigmoid(i1)
        + np.tanh(a2) * _sigmoid(i2)
        + _sigmoid(f1) * c1
        + _sigmoid(f2) * c2
    )
    return c, _sigmoid(o1 + o2) * np.tanh(c)


@pytest.mark.parametrize("c_shape,x_shape", [((3, 2), (3, 8)), ((2, 2, 3), (2, 8, 3))])
def test_slstm(c_shape, x_shape, float_dtype, device):
    check_op(
        F.slstm,
        _slstm_ref,
        [c_shape, c_shape, x_shape, x_shape],
        dtype=float_dtype,
        device=device,
    )


def test_slstm_invalid():
    c = np.zeros((2, 3), np.float32)
    with pytest.raises(type_check.InvalidType):
        F.slstm(c, c, np.zeros((2, 12), np.float32), np.zeros((2, 8), np.float32))
    with pytest.raises(type_check.InvalidType):
        F.slstm(c, c, np.zeros((2, 10), np.float32), np.zeros((2, 10), np.float32))
