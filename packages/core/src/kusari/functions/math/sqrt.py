"""Square root and reciprocal square root."""

from __future__ import annotations

from typing import Any

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.functions.math._helpers import check_float_unary
from kusari.utils import force_array
from kusari.variable import Variable


class Sqrt(FunctionNode):
    check_type_forward = staticmethod(check_float_unary)

    @property
    def label(self) -> str:
        return "sqrt"

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_outputs((0,))
        (x,) = inputs
        return (force_array(backend.get_array_module(x).sqrt(x), x.dtype),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        (y,) = self.get_retained_outputs()
        return (grad_outputs[0] / (y * 2.0),)


def sqrt(x: Any) -> Variable:
    """Elementwise square root.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.sqrt(np.array([4., 9.], np.float32)).array
        array([2., 3.], dtype=float32)
    """
    return Sqrt().apply((x,))[0]


def rsqrt(x: Any) -> Variable:
    """Elementwise reciprocal square root, ``1 / sqrt(x)``.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.rsqrt(np.array([4.], np.float32)).array
        array([0.5], dtype=float32)
    """
    return 1.0 / sqrt(x)
