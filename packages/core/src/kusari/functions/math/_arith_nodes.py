"""The FunctionNodes of negation, absolute value, addition, subtraction and
multiplication, and the operand helpers the arithmetic shares.

The user-facing functions and Variable's operators that apply them are in
:mod:`kusari.functions.math.basic_math`, which re-exports every name here.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy

from kusari import backend, utils
from kusari._function_node_support import retained_input_array as _retained
from kusari.configuration import _generation, _hot
from kusari.function_node import FunctionNode
from kusari.functions.math._arith_direct import (
    BIG,
    array_of,
    direct,
    large,
    needs_grad,
    plain_result,
)
from kusari.functions.math.sum import sum_to
from kusari.utils import force_array, type_check
from kusari.variable import Variable, _array_types

# -- helpers -------------------------------------------------------------


_operand_types = (Variable, *_array_types)
_ndarray = numpy.ndarray
_BOTH_INPUTS = (0, 1)


def _is_operand(x: Any) -> bool:
    return isinstance(x, _operand_types)


def _check_scalar(value: Any, opname: str) -> Any:
    # Python scalars are "weak" in NumPy 2 (they keep the array's dtype);
    # NumPy scalars are not, so turn them into Python scalars once here.
    if isinstance(value, (numpy.number, numpy.bool_)):
        return value.item()  # also catches numpy.float64, a float subclass
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, complex):
        raise TypeError(f"{opname}: complex constants are not supported")
    raise TypeError(
        f"{opname}: the other operand must be a Variable, an ndarray or a scalar, "
        f"got {type(value).__name__}"
    )


def _reduce_to(gx: Variable | None, shape: tuple[int, ...]) -> Variable | None:
    if gx is None or gx.shape == shape:
        return gx
    return sum_to(gx, shape)


# The backward_array methods below are the first-order backward of each
# function on bare arrays (see FunctionNode.backward_array). They compute
# exactly what backward computes, in the same order of operations, so
# results match bit for bit.


def _sum_to_array(gy: Any, shape: tuple[int, ...]) -> Any:
    return gy if gy.shape == shape else utils.sum_to(gy, shape)


def _py_scalar(value: Any) -> Any:
    # What backward's Variable arithmetic does to a constant (_check_scalar):
    # a NumPy scalar would promote float32 gradients to float64.
    t = type(value)
    return value if t is float or t is int else _check_scalar(value, "backward")


def _check_binary(in_types: Any) -> None:
    if type(in_types) is type_check.LightTypeInfoTuple and len(in_types) == 2:
        a, b = in_types
        if a.dtype == b.dtype and a.shape == b.shape:
            return  # the common case, decided without building expressions
    type_check._argname(in_types, ("lhs", "rhs"))
    type_check.expect(in_types[0].dtype == in_types[1].dtype)
    type_check.expect_broadcast_shapes(in_types[0].shape, in_types[1].shape)


# -- negation and absolute value ----------------------------------------------


class Neg(FunctionNode):
    @property
    def label(self) -> str:
        return "__neg__"

    def forward(self, x: tuple[Any, ...]) -> tuple[Any, ...]:
        x0 = x[0]
        y = -x0 if x0.size < BIG else large(numpy.negative, operator.neg, x0)
        return (y if type(y) is _ndarray else force_array(y),)

    def backward(self, indexes: Any, gy: Any) -> tuple[Any, ...]:
        return (neg(gy[0]),)

    def backward_array(self, indexes: Any, gy: Any) -> tuple[Any, ...]:
        return (-gy[0],)


def neg(self: Any) -> Variable:
    """Elementwise negation, ``-x``."""
    if not _hot.enable_backprop or _hot.generation != _generation[0]:
        mode = direct()
        if mode:
            d = array_of(self)
            if mode == 1 or type(d) is _ndarray:
                return plain_result(
                    large(numpy.negative, operator.neg, d), needs_grad(self)
                )
    return Neg().apply((self,))[0]


class Absolute(FunctionNode):
    @property
    def label(self) -> str:
        return "|_|"

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        type_check.expect(in_types[0].dtype.kind == "f")

    def forward(self, x: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        y = abs(x[0])
        return (y if type(y) is _ndarray else force_array(y),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        x = self.get_retained_inputs()[0].array
        xp = backend.get_array_module(x)
        return (grad_outputs[0] * xp.sign(x),)

    def backward_array(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        x = _retained(self, 0)
        xp = backend.get_array_module(x)
        return (grad_outputs[0] * xp.sign(x),)


# -- addition ---------------------------------------------------------------


class Add(FunctionNode):
    @property
    def label(self) -> str:
        return "_ + _"

    check_type_forward = staticmethod(_check_binary)
    _same_operands_pass_type_check = True

    def forward(self, x: tuple[Any, ...]) -> tuple[Any, ...]:
        a, b = x
        self._shapes = (a.shape, b.shape)
        if a.size < BIG and b.size < BIG:
            y = a + b
        else:
            y = large(numpy.add, operator.add, a, b)
        return (y if type(y) is _ndarray else force_array(y),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        gy = grad_outputs[0]
        s0, s1 = self._shapes
        return tuple([_reduce_to(gy, s0 if i == 0 else s1) for i in indexes])

    def backward_array(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        gy = grad_outputs[0]
        s0, s1 = self._shapes
        if s0 == s1 == gy.shape:
            return (gy,) * len(indexes)
        return tuple([_sum_to_array(gy, s0 if i == 0 else s1) for i in indexes])


class _ConstantOp(FunctionNode):
    """An operation between a variable and a scalar constant ``value``."""

    label_template = "{}"

    def __init__(self, value: Any) -> None:
        self.value = value

    @property
    def label(self) -> str:
        return self.label_template.format(_scalar_label(self.value))


class _FloatConstantOp(_ConstantOp):
    """A constant operation defined for float inputs only."""

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        type_check.expect(in_types[0].dtype.kind == "f")


class AddConstant(_ConstantOp):
    label_template = "_ + {}"

    def forward(self, x: tuple[Any, ...]) -> tuple[Any, ...]:
        x0 = x[0]
        if x0.size < BIG:
            y = x0 + self.value
        else:
            y = large(numpy.add, operator.add, x0, self.value)
        return (y if type(y) is _ndarray else force_array(y),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        return (grad_outputs[0],)

    def backward_array(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        return (grad_outputs[0],)


class MultiAdd(FunctionNode):
    """The sum of any number of same-shaped inputs."""

    @property
    def label(self) -> str:
        return "_ + _ + ..."

    def check_type_forward(self, in_types: Any) -> None:
        for i, t in enumerate(in_types):
            type_check._argname((t,), (f"x{i}",))
            type_check.expect(in_types[0].dtype == t.dtype)
        type_check.expect_broadcast_shapes(*[t.shape for t in in_types])

    def forward(self, xs: tuple[Any, ...]) -> tuple[Any, ...]:
        self._shapes = [x.shape for x in xs]
        if len(xs) == 1:
            # The output must not be the input's array (it may be changed).
            return (xs[0].copy(),)
        y = xs[0]
        for x in xs[1:]:
            y = y + x
        return (y if type(y) is _ndarray else force_array(y),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        gy = grad_outputs[0]
        return tuple([_reduce_to(gy, self._shapes[i]) for i in indexes])

    def backward_array(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        gy = grad_outputs[0]
        return tuple([_sum_to_array(gy, self._shapes[i]) for i in indexes])


# -- subtraction ---------------------------------------------------------------


class Sub(FunctionNode):
    @property
    def label(self) -> str:
        return "_ - _"

    check_type_forward = staticmethod(_check_binary)
    _same_operands_pass_type_check = True

    def forward(self, x: tuple[Any, ...]) -> tuple[Any, ...]:
        a, b = x
        self._shapes = (a.shape, b.shape)
        if a.size < BIG and b.size < BIG:
            y = a - b
        else:
            y = large(numpy.subtract, operator.sub, a, b)
        return (y if type(y) is _ndarray else force_array(y),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        gy = grad_outputs[0]
        s0, s1 = self._shapes
        return tuple(
            [_reduce_to(gy, s0) if i == 0 else _reduce_to(-gy, s1) for i in indexes]
        )

    def backward_array(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        gy = grad_outputs[0]
        s0, s1 = self._shapes
        return tuple(
            [
                _sum_to_array(gy, s0) if i == 0 else _sum_to_array(-gy, s1)
                for i in indexes
            ]
        )


class SubFromConstant(_ConstantOp):
    label_template = "{} - _"

    def forward(self, x: tuple[Any, ...]) -> tuple[Any, ...]:
        x0 = x[0]
        if x0.size < BIG:
            y = self.value - x0
        else:
            y = large(numpy.subtract, operator.sub, self.value, x0)
        return (y if type(y) is _ndarray else force_array(y),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        return (-grad_outputs[0],)

    def backward_array(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        return (-grad_outputs[0],)


# -- multiplication --------------------------------------------------------------


class Mul(FunctionNode):
    @property
    def label(self) -> str:
        return "_ * _"

    check_type_forward = staticmethod(_check_binary)
    _same_operands_pass_type_check = True

    def forward(self, x: tuple[Any, ...]) -> tuple[Any, ...]:
        # retain_inputs((0, 1)) without the call (one of the commonest ops)
        self._input_indexes_to_retain = _BOTH_INPUTS
        a, b = x
        if a.size < BIG and b.size < BIG:
            y = a * b
        else:
            y = large(numpy.multiply, operator.mul, a, b)
        return (y if type(y) is _ndarray else force_array(y),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        gy = grad_outputs[0]
        xs = self.get_retained_inputs()
        ret = []
        for i in indexes:
            other = xs[1 - i]
            ret.append(_reduce_to(gy * other, xs[i].shape))
        return tuple(ret)

    def backward_array(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        gy = grad_outputs[0]
        n0, n1 = self.inputs  # type: ignore[misc]
        x0 = n0.data
        x1 = n1.data
        if x0 is None or x1 is None:  # see _retained
            x0 = _retained(self, 0)
            x1 = _retained(self, 1)
        if len(indexes) == 2 and x0.shape == x1.shape == gy.shape:
            if gy.size < BIG:
                return (gy * x1, gy * x0)
            return (
                large(numpy.multiply, operator.mul, gy, x1),
                large(numpy.multiply, operator.mul, gy, x0),
            )
        return tuple(
            [
                _sum_to_array(gy * x1, x0.shape)
                if i == 0
                else _sum_to_array(gy * x0, x1.shape)
                for i in indexes
            ]
        )


class MulConstant(_ConstantOp):
    label_template = "_ * {}"

    def forward(self, x: tuple[Any, ...]) -> tuple[Any, ...]:
        x0 = x[0]
        if x0.size < BIG:
            y = x0 * self.value
        else:
            y = large(numpy.multiply, operator.mul, x0, self.value)
        return (y if type(y) is _ndarray else force_array(y),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        return (grad_outputs[0] * self.value,)

    def backward_array(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        c = self.value
        if type(c) is not float and type(c) is not int:
            c = _py_scalar(c)
        gy = grad_outputs[0]
        if gy.size < BIG:
            return (gy * c,)
        return (large(numpy.multiply, operator.mul, gy, c),)


def _scalar_label(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return f"{value:.1f}"
    return str(value)
