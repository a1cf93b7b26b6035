"""Arithmetic operators through check_op: values, gradients, second order."""

from __future__ import annotations

import numpy as np
import pytest

import kusari.functions as F
from kusari import Variable
from kusari.testing import check_op


def _positive(shape):
    return lambda rng, dtype: rng.uniform(0.5, 1.5, shape).astype(dtype)


SHAPE_PAIRS = [((3, 4), (3, 4)), ((3, 4), (4,)), ((2, 1, 3), (4, 1)), ((), (2,))]


@pytest.mark.parametrize("shapes", SHAPE_PAIRS)
@pytest.mark.parametrize(
    "op",
    [
        lambda a, b: a + b,
        lambda a, b: a - b,
        lambda a, b: a * b,
    ],
)
def test_binary(op, shapes, float_dtype, device):
    check_op(op, op, list(shapes), dtype=float_dtype, device=device)


@pytest.mark.parametrize("shapes", SHAPE_PAIRS)
def test_div(shapes, float_dtype, device):
    check_op(
        lambda a, b: a / b,
        lambda a, b: a / b,
        [shapes[0], _positive(shapes[1])],
        dtype=float_dtype,
        device=device,
    )


def test_pow_var_var(float_dtype, device):
    check_op(
        lambda a, b: a**b,
        lambda a, b: a**b,
        [_positive((3, 2)), (3, 2)],
        dtype=float_dtype,
        device=device,
    )


@pytest.mark.parametrize(
    "op",
    [
        lambda x: x + 2.5,
        lambda x: 2.5 + x,
        lambda x: x - 2,
        lambda x: 2 - x,
        lambda x: x * 1.5,
        lambda x: 1.5 * x,
        lambda x: x / 2.0,
        lambda x: -x,
        lambda x: x**2,
        lambda x: x**3.5,
        lambda x: 2.0**x,
        lambda x: 3.0 / x,
    ],
)
def test_with_constant(op, float_dtype, device):
    check_op(op, op, [_positive((2, 3))], dtype=float_dtype, device=device)


def test_absolute(float_dtype, device):
    check_op(
        F.absolute,
        np.abs,
        [(3, 4)],
        dtype=float_dtype,
        device=device,
        dodge_nondifferentiable=True,
    )


def test_multi_add(float_dtype, device):
    check_op(
        lambda a, b, c: F.add(a, b, c),
        lambda a, b, c: a + b + c,
        [(2, 3), (2, 3), (3,)],
        dtype=float_dtype,
        device=device,
    )


def test_floordiv_has_no_gradient():
    x = Variable(np.array([1.5, 2.5], np.float32))
    y = x // 1.0
    np.testing.assert_array_equal(y.array, [1.0, 2.0])
    F.sum(y * 1.0 + x).backward()
    np.testing.assert_array_equal(x.grad, [1.0, 1.0])


def test_add_needs_two_inputs():
    with pytest.raises(TypeError, match="at least 2 inputs"):
        F.add(np.ones(1, np.float32))


def test_complex_constant_rejected():
    with pytest.raises(TypeError, match="complex constants"):
        Variable(np.ones(1, np.float32)) * 1j
