"""Elementwise squared error."""

from __future__ import annotations

from typing import Any

from kusari.function_node import FunctionNode
from kusari.functions.loss.absolute_error import _check_pair
from kusari.utils import force_array
from kusari.variable import Variable


class SquaredError(FunctionNode):
    """``(x0 - x1) ** 2`` elementwise."""

    check_type_forward = staticmethod(_check_pair)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x0, x1 = inputs
        diff = x0 - x1
        return (force_array(diff * diff),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        x0, x1 = self.get_retained_inputs()
        gx = grad_outputs[0] * ((x0 - x1) * 2.0)
        return tuple(gx if i == 0 else -gx for i in indexes)


def squared_error(x0: Any, x1: Any) -> Variable:
    """Elementwise squared difference ``(x0 - x1) ** 2``.

    Args:
        x0: First input variable.
        x1: Second input variable, of the same shape and dtype.

    Returns:
        A variable of the inputs' shape.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.squared_error(np.array([1., -2.], np.float32),
        ...                 np.array([0., 1.], np.float32)).array
        array([1., 9.], dtype=float32)
    """
    return SquaredError().apply((x0, x1))[0]
