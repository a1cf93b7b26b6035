"""``expm1``: ``exp(x) - 1``, accurate near zero."""

from __future__ import annotations

from typing import Any

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.functions.math._helpers import check_float_unary
from kusari.utils import force_array
from kusari.variable import Variable


class Expm1(FunctionNode):
    check_type_forward = staticmethod(check_float_unary)

    @property
    def label(self) -> str:
        return "expm1"

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_outputs((0,))
        (x,) = inputs
        return (force_array(backend.get_array_module(x).expm1(x), x.dtype),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        (y,) = self.get_retained_outputs()
        return (grad_outputs[0] * (y + 1.0),)


def expm1(x: Any) -> Variable:
    """Elementwise ``exp(x) - 1``.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.expm1(np.zeros(2, np.float32)).array
        array([0., 0.], dtype=float32)
    """
    return Expm1().apply((x,))[0]
