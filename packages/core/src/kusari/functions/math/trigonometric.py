"""Trigonometric functions: sin, cos, tan, arcsin, arccos, arctan, arctan2."""

from __future__ import annotations

from typing import Any

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.functions.math._helpers import check_float, check_float_unary
from kusari.utils import force_array
from kusari.variable import Variable


class _UnaryInput(FunctionNode):
    """An elementwise ufunc whose backward needs the input."""

    ufunc = "sin"
    check_type_forward = staticmethod(check_float_unary)

    @property
    def label(self) -> str:
        return self.ufunc

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        (x,) = inputs
        xp = backend.get_array_module(x)
        return (force_array(getattr(xp, self.ufunc)(x), x.dtype),)


class Sin(_UnaryInput):
    ufunc = "sin"

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        (x,) = self.get_retained_inputs()
        return (grad_outputs[0] * cos(x),)


class Cos(_UnaryInput):
    ufunc = "cos"

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        (x,) = self.get_retained_inputs()
        return (-(grad_outputs[0] * sin(x)),)


class Tan(_UnaryInput):
    ufunc = "tan"

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        (x,) = self.get_retained_inputs()
        c = cos(x)
        return (grad_outputs[0] / (c * c),)


class Arcsin(_UnaryInput):
    ufunc = "arcsin"

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        (x,) = self.get_retained_inputs()
        return (grad_outputs[0] * (1.0 - x * x) ** -0.5,)


class Arccos(_UnaryInput):
    ufunc = "arccos"

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        (x,) = self.get_retained_inputs()
        return (-(grad_outputs[0] * (1.0 - x * x) ** -0.5),)


class Arctan(_UnaryInput):
    ufunc = "arctan"

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        (x,) = self.get_retained_inputs()
        return (grad_outputs[0] / (1.0 + x * x),)


class Arctan2(FunctionNode):
    @property
    def label(self) -> str:
        return "arctan2"

    def check_type_forward(self, in_types: Any) -> None:
        from kusari.utils import type_check

        check_float(in_types, ("x1", "x2"))
        type_check.expect_broadcast_shapes(in_types[0].shape, in_types[1].shape)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x1, x2 = inputs
        xp = backend.get_array_module(x1)
        return (force_array(xp.arctan2(x1, x2), x1.dtype),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        from kusari.functions.math.basic_math import _reduce_to

        x1, x2 = self.get_retained_inputs()
        gy = grad_outputs[0] / (x1 * x1 + x2 * x2)
        ret = []
        for i in indexes:
            if i == 0:
                ret.append(_reduce_to(gy * x2, x1.shape))
            else:
                ret.append(_reduce_to(-(gy * x1), x2.shape))
        return tuple(ret)


def sin(x: Any) -> Variable:
    """Elementwise sine.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.sin(np.zeros(2, np.float32)).array
        array([0., 0.], dtype=float32)
    """
    return Sin().apply((x,))[0]


def cos(x: Any) -> Variable:
    """Elementwise cosine.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.cos(np.zeros(2, np.float32)).array
        array([1., 1.], dtype=float32)
    """
    return Cos().apply((x,))[0]


def tan(x: Any) -> Variable:
    """Elementwise tangent."""
    return Tan().apply((x,))[0]


def arcsin(x: Any) -> Variable:
    """Elementwise inverse sine (input in [-1, 1])."""
    return Arcsin().apply((x,))[0]


def arccos(x: Any) -> Variable:
    """Elementwise inverse cosine (input in [-1, 1])."""
    return Arccos().apply((x,))[0]


def arctan(x: Any) -> Variable:
    """Elementwise inverse tangent."""
    return Arctan().apply((x,))[0]


def arctan2(x1: Any, x2: Any) -> Variable:
    """Elementwise arc tangent of ``x1 / x2`` choosing the quadrant.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.arctan2(np.ones(1, np.float32), np.ones(1, np.float32)).array
        array([0.78540], dtype=float32)
    """
    return Arctan2().apply((x1, x2))[0]
