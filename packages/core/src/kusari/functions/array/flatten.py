"""``flatten``: all elements in one axis (a view when possible)."""

from __future__ import annotations

from typing import Any

from kusari.function_node import FunctionNode
from kusari.utils import type_check
from kusari.variable import Variable


class Flatten(FunctionNode):
    """Reshape to one dimension."""

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = inputs
        self._in_shape = x.shape
        return (x.reshape(-1),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        from kusari.functions.array.reshape import Reshape

        # Always a node (``reshape`` returns its input when the shape matches).
        return Reshape(self._in_shape).apply(grad_outputs)


def flatten(x: Any) -> Variable:
    """Flatten ``x`` into a one-dimensional array (C order).

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.flatten(np.zeros((2, 3), np.float32)).shape
        (6,)
    """
    return Flatten().apply((x,))[0]
