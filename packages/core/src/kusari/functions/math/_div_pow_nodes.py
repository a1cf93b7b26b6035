"""The FunctionNodes of division, floor division and power.

The user-facing functions and Variable's operators that apply them are in
:mod:`kusari.functions.math.basic_math`, which re-exports every name here.
"""

from __future__ import annotations

import math
import operator
from typing import Any

import numpy

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.functions.math._arith_direct import (
    BIG,
    large,
)
from kusari.functions.math._arith_nodes import (
    _check_binary,
    _FloatConstantOp,
    _is_operand,
    _ndarray,
    _py_scalar,
    _reduce_to,
    _retained,
    _sum_to_array,
)
from kusari.functions.math.exponential import log
from kusari.utils import force_array, type_check

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
