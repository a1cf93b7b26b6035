"""relu, softmax and log_softmax (written with the engine)."""

from __future__ import annotations

import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari.testing import check_op


def test_relu(float_dtype, device):
    check_op(
        F.relu,
        lambda x: np.maximum(x, 0),
        [(3, 4)],
        dtype=float_dtype,
        device=device,
        dodge_nondifferentiable=True,
    )


def _softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


@pytest.mark.parametrize("axis", [1, 0, -1, 2])
def test_softmax(axis, float_dtype, device):
    check_op(
        lambda x: F.softmax(x, axis=axis),
        lambda x: _softmax(x, axis),
        [(2, 3, 4)],
        dtype=float_dtype,
        device=device,
    )


@pytest.mark.parametrize("axis", [1, 0, -1])
def test_log_softmax(axis, float_dtype, device):
    check_op(
        lambda x: F.log_softmax(x, axis=axis),
        lambda x: np.log(_softmax(x, axis)),
        [(2, 3, 4)],
        dtype=float_dtype,
        device=device,
    )


def test_log_softmax_is_stable():
    y = F.log_softmax(np.array([[1000.0, 0.0]], np.float32))
    assert np.isfinite(y.array).all()


def test_relu_of_a_0d_array_stays_an_array_through_double_backward():
    # NumPy reduces 0-d results to scalars; each step must hand back arrays.
    x = kusari.Variable(np.array(0.5, np.float32))
    y = F.relu(x)
    assert isinstance(y.array, np.ndarray) and y.shape == ()
    (gx,) = kusari.grad([y * y], [x], enable_double_backprop=True)
    assert isinstance(gx.array, np.ndarray) and float(gx.array) == 1.0
    gx.backward()
    assert isinstance(x.grad, np.ndarray) and float(x.grad) == 2.0
    neg = F.relu(np.array(-1.0, np.float64))
    assert isinstance(neg.array, np.ndarray) and float(neg.array) == 0.0
