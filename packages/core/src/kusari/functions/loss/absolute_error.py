"""Elementwise absolute error."""

from __future__ import annotations

from typing import Any

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.utils import force_array, type_check
from kusari.variable import Variable


def _check_pair(in_types: Any) -> None:
    type_check._argname(in_types, ("x0", "x1"))
    type_check.expect(
        in_types[0].dtype.kind == "f",
        in_types[0].dtype == in_types[1].dtype,
        in_types[0].shape == in_types[1].shape,
    )


class AbsoluteError(FunctionNode):
    """``|x0 - x1|`` elementwise."""

    check_type_forward = staticmethod(_check_pair)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x0, x1 = inputs
        diff = x0 - x1
        self._sign = backend.get_array_module(diff).sign(diff)
        return (force_array(abs(diff)),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        gx = grad_outputs[0] * self._sign
        return tuple(gx if i == 0 else -gx for i in indexes)


def absolute_error(x0: Any, x1: Any) -> Variable:
    """Elementwise absolute difference ``|x0 - x1|``.

    Args:
        x0: First input variable.
        x1: Second input variable, of the same shape and dtype.

    Returns:
        A variable of the inputs' shape.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.absolute_error(np.array([1., -2.], np.float32),
        ...                  np.array([0., 1.], np.float32)).array
        array([1., 3.], dtype=float32)
    """
    return AbsoluteError().apply((x0, x1))[0]
