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


def test_add_needs_an_input():
    with pytest.raises(TypeError, match="at least 1 input"):
        F.add()


def test_add_of_one_input_is_a_differentiable_copy():
    # Chainer's MultiAdd of a single input: the input itself.
    x = Variable(np.array([1.0, -2.0], np.float32))
    y = F.add(x)
    np.testing.assert_array_equal(y.array, x.array)
    assert not np.shares_memory(y.array, x.array)
    y.grad = np.array([3.0, 4.0], np.float32)
    y.backward()
    np.testing.assert_array_equal(x.grad, [3.0, 4.0])


def test_complex_constant_rejected():
    with pytest.raises(TypeError, match="complex constants"):
        Variable(np.ones(1, np.float32)) * 1j


# Chainer v7 casts a constant array to the dtype of the Variable it meets
# (gradient_check runs float32 tests in float64 against float32 constants).
CAST_OPS = {
    "add": lambda v, a: v + a,
    "radd": lambda v, a: v.__radd__(a),
    "sub": lambda v, a: v - a,
    "rsub": lambda v, a: v.__rsub__(a),
    "mul": lambda v, a: v * a,
    "rmul": lambda v, a: v.__rmul__(a),
    "div": lambda v, a: v / a,
    "rdiv": lambda v, a: v.__rtruediv__(a),
    "pow": lambda v, a: v**a,
    "rpow": lambda v, a: v.__rpow__(a),
}


@pytest.mark.parametrize("backprop", [True, False])
@pytest.mark.parametrize("name", sorted(CAST_OPS))
def test_constant_array_takes_the_variable_dtype(name, backprop):
    import kusari

    op = CAST_OPS[name]
    x = np.array([[0.5, 0.75], [1.25, 1.5]])
    a = np.array([0.6, 0.9], dtype=np.float32)
    v = Variable(x)
    with kusari.using_config("enable_backprop", backprop):
        y = op(v, a)
    assert y.dtype == np.float64
    np.testing.assert_allclose(y.array, op(x, a.astype(np.float64)), rtol=1e-12)
    if backprop:
        y.grad = np.ones_like(y.array)
        y.backward()
        assert v.grad.dtype == np.float64


def test_variables_of_two_dtypes_are_still_rejected():
    from kusari.utils import type_check

    a = Variable(np.ones(2, np.float32))
    b = Variable(np.ones(2, np.float64))
    with pytest.raises(type_check.InvalidType, match="lhs.dtype == rhs.dtype"):
        a + b


def test_cast_constant_must_still_broadcast():
    from kusari.utils import type_check

    v = Variable(np.ones(2, np.float64))
    with pytest.raises(type_check.InvalidType, match="broadcast"):
        v * np.ones(3, np.float32)


@pytest.mark.parametrize(
    "value,text",
    [
        (2, "2"),
        (-2, "(-2)"),
        (0.0, "0.0"),
        (-2.5, "(-2.5)"),
        (np.float32(2), "2.0"),
        (np.array([1, 2]), "constant array"),
        (Variable(np.array([1.0])), "constant array"),
    ],
)
def test_convert_value_to_string(value, text):
    from kusari.functions.math import basic_math

    assert basic_math._convert_value_to_string(value) == text


def test_convert_value_to_string_rejects_other_objects():
    from kusari.functions.math import basic_math

    with pytest.raises(ValueError, match="_convert_value_to_string.*got list"):
        basic_math._convert_value_to_string([1, 2])
