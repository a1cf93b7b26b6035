"""Arithmetic on Variables: the functions behind ``+ - * / // ** @`` and ``-x``.

Binary operations accept a Variable or array on each side (same dtype,
broadcastable shapes) or a Python/NumPy scalar on one side, which is cast to
the variable's dtype.
"""

from __future__ import annotations

import math
import operator
from typing import Any

import numpy

from kusari import backend, utils
from kusari.configuration import _generation, _hot
from kusari.function_node import FunctionNode
from kusari.functions.array.get_item import get_item
from kusari.functions.array.reshape import reshape
from kusari.functions.array.transpose import transpose
from kusari.functions.math._arith_direct import (
    BIG,
    array_of,
    direct,
    direct_binary,
    direct_constant,
    large,
    needs_grad,
    plain_result,
)
from kusari.functions.math.exponential import log
from kusari.functions.math.matmul import matmul as _matmul
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


def _retained(func: FunctionNode, i: int) -> Any:
    """Retained input ``i`` of ``func`` as an array."""
    node = func.inputs[i]  # type: ignore[index]
    data = node.data
    if data is None:
        # An earlier backward through a shared subgraph dropped the node's
        # copy while the Variable lives on; get_retained_inputs reads that.
        data = node.get_variable()._data
    return data


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


def absolute(self: Any) -> Variable:
    """Elementwise absolute value, ``abs(x)``."""
    return Absolute().apply((self,))[0]


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


def add(*xs: Any) -> Variable:
    """Elementwise sum: ``add(a, b)`` is ``a + b``; more inputs are summed.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.add(np.ones(2, np.float32), np.ones(2, np.float32)).array
        array([2., 2.], dtype=float32)
    """
    if len(xs) == 2:
        return _add(xs[0], xs[1])
    if len(xs) < 2:
        raise TypeError(f"add takes at least 2 inputs, got {len(xs)}")
    return MultiAdd().apply(xs)[0]


def _add(lhs: Any, rhs: Any) -> Variable:
    """``lhs + rhs`` (``Variable.__add__`` and ``__radd__``)."""
    t = type(rhs)
    if t is float or t is int:
        value = rhs
    elif t is Variable or _is_operand(rhs):
        if not _hot.enable_backprop or _hot.generation != _generation[0]:
            y = direct_binary(numpy.add, operator.add, lhs, rhs, False)
            if y is not None:
                return y
        return Add().apply((lhs, rhs))[0]
    else:
        value = _check_scalar(rhs, "add")
    if not _hot.enable_backprop or _hot.generation != _generation[0]:
        y = direct_constant(numpy.add, operator.add, lhs, value)
        if y is not None:
            return y
    return AddConstant(value).apply((lhs,))[0]


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


def sub(self: Any, rhs: Any) -> Variable:
    """Elementwise difference, ``a - b``."""
    t = type(rhs)
    if t is float or t is int:
        value = rhs
    elif t is Variable or _is_operand(rhs):
        if not _hot.enable_backprop or _hot.generation != _generation[0]:
            y = direct_binary(numpy.subtract, operator.sub, self, rhs, False)
            if y is not None:
                return y
        return Sub().apply((self, rhs))[0]
    else:
        value = _check_scalar(rhs, "sub")
    if not _hot.enable_backprop or _hot.generation != _generation[0]:
        y = direct_constant(numpy.subtract, operator.sub, self, value)
        if y is not None:
            return y
    return AddConstant(-value).apply((self,))[0]


def rsub(self: Any, rhs: Any) -> Variable:
    """Reflected difference, ``rhs - self``."""
    if _is_operand(rhs):
        return Sub().apply((rhs, self))[0]
    value = _check_scalar(rhs, "rsub")
    if not _hot.enable_backprop or _hot.generation != _generation[0]:
        y = direct_constant(numpy.subtract, operator.sub, self, value, True)
        if y is not None:
            return y
    return SubFromConstant(value).apply((self,))[0]


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


def mul(self: Any, rhs: Any) -> Variable:
    """Elementwise product, ``a * b``."""
    t = type(rhs)
    if t is float or t is int:
        value = rhs
    elif t is Variable or _is_operand(rhs):
        if not _hot.enable_backprop or _hot.generation != _generation[0]:
            y = direct_binary(numpy.multiply, operator.mul, self, rhs, False)
            if y is not None:
                return y
        return Mul().apply((self, rhs))[0]
    else:
        value = _check_scalar(rhs, "mul")
    if not _hot.enable_backprop or _hot.generation != _generation[0]:
        y = direct_constant(numpy.multiply, operator.mul, self, value)
        if y is not None:
            return y
    return MulConstant(value).apply((self,))[0]


# -- division ----------------------------------------------------------------


class Div(FunctionNode):
    @property
    def label(self) -> str:
        return "_ / _"

    def check_type_forward(self, in_types: Any) -> None:
        _check_binary(in_types)
        type_check.expect(in_types[0].dtype.kind == "f")

    def forward(self, x: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        a, b = x
        if a.size < BIG and b.size < BIG:
            y = a / b
        else:
            y = large(numpy.true_divide, operator.truediv, a, b)
        return (y if type(y) is _ndarray else force_array(y),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        gy = grad_outputs[0]
        x0, x1 = self.get_retained_inputs()
        ret = []
        for i in indexes:
            if i == 0:
                ret.append(_reduce_to(gy / x1, x0.shape))
            else:
                ret.append(_reduce_to(-gy * x0 / (x1 * x1), x1.shape))
        return tuple(ret)

    def backward_array(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        gy = grad_outputs[0]
        x0 = _retained(self, 0)
        x1 = _retained(self, 1)
        return tuple(
            [
                _sum_to_array(gy / x1, x0.shape)
                if i == 0
                else _sum_to_array(-gy * x0 / (x1 * x1), x1.shape)
                for i in indexes
            ]
        )


class DivFromConstant(_FloatConstantOp):
    label_template = "{} / _"

    def forward(self, x: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        x0 = x[0]
        if x0.size < BIG:
            y = self.value / x0
        else:
            y = large(numpy.true_divide, operator.truediv, self.value, x0)
        return (y if type(y) is _ndarray else force_array(y),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        x = self.get_retained_inputs()[0]
        return (grad_outputs[0] * (-self.value) / (x * x),)

    def backward_array(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        x = _retained(self, 0)
        return (grad_outputs[0] * -_py_scalar(self.value) / (x * x),)


def div(self: Any, rhs: Any) -> Variable:
    """Elementwise true division, ``a / b``."""
    if _is_operand(rhs):
        if not _hot.enable_backprop or _hot.generation != _generation[0]:
            y = direct_binary(numpy.true_divide, operator.truediv, self, rhs, True)
            if y is not None:
                return y
        return Div().apply((self, rhs))[0]
    value = _check_scalar(rhs, "div")
    return mul(self, 1.0 / value)


def rdiv(self: Any, rhs: Any) -> Variable:
    """Reflected division, ``rhs / self``."""
    if _is_operand(rhs):
        return Div().apply((rhs, self))[0]
    value = _check_scalar(rhs, "rdiv")
    if not _hot.enable_backprop or _hot.generation != _generation[0]:
        mode = direct()
        d = array_of(self)
        # DivFromConstant's type check: a float input.
        if mode == 1 or (mode == 2 and type(d) is _ndarray and d.dtype.kind == "f"):
            return plain_result(
                large(numpy.true_divide, operator.truediv, value, d), needs_grad(self)
            )
    return DivFromConstant(value).apply((self,))[0]


class FloorDiv(FunctionNode):
    """``a // b``: piecewise constant, so its gradient is zero (None)."""

    @property
    def label(self) -> str:
        return "_ // _"

    def forward(self, x: tuple[Any, ...]) -> tuple[Any, ...]:
        a, b = x
        if not _is_operand(b):
            b = a.dtype.type(b)
        y = a // b
        return (y if type(y) is _ndarray else force_array(y),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        return (None,) * len(indexes)

    def backward_array(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        return (None,) * len(indexes)


def floordiv(self: Any, rhs: Any) -> Variable:
    """Elementwise floor division (not differentiable: zero gradient)."""
    if _is_operand(rhs):
        return FloorDiv().apply((self, rhs))[0]
    value = _check_scalar(rhs, "floordiv")
    x = self.array if isinstance(self, Variable) else self
    return FloorDiv().apply(
        (self, backend.get_array_module(x).asarray(value, dtype=x.dtype))
    )[0]


def rfloordiv(self: Any, rhs: Any) -> Variable:
    """Reflected floor division, ``rhs // self``."""
    if _is_operand(rhs):
        return FloorDiv().apply((rhs, self))[0]
    value = _check_scalar(rhs, "rfloordiv")
    x = self.array if isinstance(self, Variable) else self
    return FloorDiv().apply(
        (backend.get_array_module(x).asarray(value, dtype=x.dtype), self)
    )[0]


# -- power -----------------------------------------------------------------


class PowVarVar(FunctionNode):
    @property
    def label(self) -> str:
        return "_ ** _"

    def check_type_forward(self, in_types: Any) -> None:
        _check_binary(in_types)
        type_check.expect(in_types[0].dtype.kind == "f")

    def forward(self, x: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        self.retain_outputs((0,))
        y = x[0] ** x[1]
        return (y if type(y) is _ndarray else force_array(y),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        x0, x1 = self.get_retained_inputs()
        (y,) = self.get_retained_outputs()
        gy = grad_outputs[0]
        ret = []
        for i in indexes:
            if i == 0:
                ret.append(_reduce_to(gy * x1 * x0 ** (x1 - 1), x0.shape))
            else:
                ret.append(_reduce_to(gy * y * log(x0), x1.shape))
        return tuple(ret)

    def backward_array(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        x0 = _retained(self, 0)
        x1 = _retained(self, 1)
        (y,) = self._retained_output_data  # type: ignore[misc]
        gy = grad_outputs[0]
        xp = backend.get_array_module(x0)
        return tuple(
            [
                _sum_to_array(gy * x1 * x0 ** (x1 - 1), x0.shape)
                if i == 0
                else _sum_to_array(gy * y * xp.log(x0), x1.shape)
                for i in indexes
            ]
        )


class PowVarConst(_FloatConstantOp):
    label_template = "_ ** {}"

    def forward(self, x: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        x0 = x[0]
        y = x0**self.value
        return (y if type(y) is _ndarray else force_array(y),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        (x,) = self.get_retained_inputs()
        c = self.value
        if c == 2:
            return (grad_outputs[0] * (x * 2.0),)
        return (grad_outputs[0] * (c * x ** (c - 1)),)

    def backward_array(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        x = _retained(self, 0)
        c = _py_scalar(self.value)
        if c == 2:
            return (grad_outputs[0] * (x * 2.0),)
        return (grad_outputs[0] * (c * x ** (c - 1)),)


class PowConstVar(_FloatConstantOp):
    label_template = "{} ** _"

    def forward(self, x: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_outputs((0,))
        x0 = x[0]
        y = self.value**x0
        return (y if type(y) is _ndarray else force_array(y),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        (y,) = self.get_retained_outputs()
        return (grad_outputs[0] * y * math.log(self.value),)

    def backward_array(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        (y,) = self._retained_output_data  # type: ignore[misc]
        return (grad_outputs[0] * y * math.log(self.value),)


def pow(self: Any, rhs: Any) -> Variable:
    """Elementwise power, ``a ** b``."""
    if _is_operand(rhs):
        return PowVarVar().apply((self, rhs))[0]
    return PowVarConst(_check_scalar(rhs, "pow")).apply((self,))[0]


def rpow(self: Any, rhs: Any) -> Variable:
    """Reflected power, ``rhs ** self``."""
    if _is_operand(rhs):
        return PowVarVar().apply((rhs, self))[0]
    return PowConstVar(_check_scalar(rhs, "rpow")).apply((self,))[0]


# -- matrix product -------------------------------------------------------------


def matmul(self: Any, rhs: Any) -> Variable:
    """Matrix product, ``a @ b`` (NumPy's matmul semantics)."""
    if not _is_operand(rhs):
        raise TypeError(
            f"matmul: expected a Variable or ndarray, got {type(rhs).__name__}"
        )
    return _matmul(self, rhs)


def rmatmul(self: Any, rhs: Any) -> Variable:
    """Reflected matrix product, ``rhs @ self``."""
    if not _is_operand(rhs):
        raise TypeError(
            f"matmul: expected a Variable or ndarray, got {type(rhs).__name__}"
        )
    return _matmul(rhs, self)


def _scalar_label(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return f"{value:.1f}"
    return str(value)


# -- Variable's operators and array methods -------------------------------------
# The engine (kusari.variable) must not import this layer, so the operators
# of Variable are bound here, by bind_variable_methods, which ``import
# kusari`` calls once. The functions above are the operators themselves: the
# graph-free fast path for arithmetic exists once, in them.


def _variable_reshape(self: Variable, *shape: Any) -> Variable:
    """``x.reshape(2, 3)`` or ``x.reshape((2, 3))``."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    return reshape(self, shape)


def _variable_transpose(self: Variable, *axes: Any) -> Variable:
    """``x.transpose()``, ``x.transpose(1, 0)`` or ``x.transpose((1, 0))``."""
    if not axes:
        return transpose(self, None)
    if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))):
        return transpose(self, axes[0])
    return transpose(self, axes)


def _variable_T(self: Variable) -> Variable:
    """The transpose (reversed axes)."""
    return transpose(self)


# Variable attribute -> the function that implements it.
VARIABLE_METHODS: dict[str, Any] = {
    "__neg__": neg,
    "__abs__": absolute,
    "__add__": _add,
    "__radd__": _add,  # elementwise addition commutes
    "__sub__": sub,
    "__rsub__": rsub,
    "__mul__": mul,
    "__rmul__": mul,  # elementwise multiplication commutes
    "__truediv__": div,
    "__rtruediv__": rdiv,
    "__floordiv__": floordiv,
    "__rfloordiv__": rfloordiv,
    "__pow__": pow,
    "__rpow__": rpow,
    "__matmul__": matmul,
    "__rmatmul__": rmatmul,
    "__getitem__": get_item,
    "reshape": _variable_reshape,
    "transpose": _variable_transpose,
    "T": property(_variable_T),
}


def bind_variable_methods(cls: type[Variable] = Variable) -> None:
    """Install the operators and array methods on ``cls`` (``import kusari`` does).

    Args:
        cls: The class to bind onto; :class:`~kusari.Variable` by default.
    """
    for name, impl in VARIABLE_METHODS.items():
        setattr(cls, name, impl)
