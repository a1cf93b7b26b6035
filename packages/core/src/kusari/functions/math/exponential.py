"""Exponentials and logarithms: ``exp``, ``log``, ``log2``, ``log10``."""

from __future__ import annotations

import math
from typing import Any

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.utils import force_array, type_check
from kusari.variable import Variable


def _check_float(in_types: Any) -> None:
    type_check._argname(in_types, ("x",))
    type_check.expect(in_types[0].dtype.kind == "f")


class Exp(FunctionNode):
    @property
    def label(self) -> str:
        return "exp"

    check_type_forward = staticmethod(_check_float)

    def forward(self, x: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_outputs((0,))
        return (force_array(backend.get_array_module(x[0]).exp(x[0])),)

    def backward(self, indexes: Any, gy: Any) -> tuple[Any, ...]:
        (y,) = self.get_retained_outputs()
        return (y * gy[0],)


def exp(x: Any) -> Variable:
    """Elementwise exponential.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.exp(np.zeros(2, np.float32)).array
        array([1., 1.], dtype=float32)
    """
    return Exp().apply((x,))[0]


class Log(FunctionNode):
    @property
    def label(self) -> str:
        return "log"

    check_type_forward = staticmethod(_check_float)

    def forward(self, x: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        return (force_array(backend.get_array_module(x[0]).log(x[0])),)

    def backward(self, indexes: Any, gy: Any) -> tuple[Any, ...]:
        (x,) = self.get_retained_inputs()
        return (gy[0] / x,)


def log(x: Any) -> Variable:
    """Elementwise natural logarithm."""
    return Log().apply((x,))[0]


class _LogBase(FunctionNode):
    base = 2.0
    name = "log2"

    @property
    def label(self) -> str:
        return self.name

    check_type_forward = staticmethod(_check_float)

    def forward(self, x: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        xp = backend.get_array_module(x[0])
        return (force_array(getattr(xp, self.name)(x[0])),)

    def backward(self, indexes: Any, gy: Any) -> tuple[Any, ...]:
        (x,) = self.get_retained_inputs()
        return (gy[0] / (x * math.log(self.base)),)


class Log2(_LogBase):
    base = 2.0
    name = "log2"


class Log10(_LogBase):
    base = 10.0
    name = "log10"


def log2(x: Any) -> Variable:
    """Elementwise base-2 logarithm."""
    return Log2().apply((x,))[0]


def log10(x: Any) -> Variable:
    """Elementwise base-10 logarithm."""
    return Log10().apply((x,))[0]
