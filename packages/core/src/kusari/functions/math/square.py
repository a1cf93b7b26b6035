"""Elementwise square."""

from __future__ import annotations

from typing import Any

from kusari.function_node import FunctionNode
from kusari.functions.math._helpers import check_float_unary
from kusari.utils import force_array
from kusari.variable import Variable


class Square(FunctionNode):
    check_type_forward = staticmethod(check_float_unary)

    @property
    def label(self) -> str:
        return "square"

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        (x,) = inputs
        return (force_array(x * x, x.dtype),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        (x,) = self.get_retained_inputs()
        return (grad_outputs[0] * (x * 2.0),)


def square(x: Any) -> Variable:
    """Elementwise square, ``x * x``.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.square(np.array([2., 3.], np.float32)).array
        array([4., 9.], dtype=float32)
    """
    return Square().apply((x,))[0]
