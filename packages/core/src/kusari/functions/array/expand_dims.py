"""``expand_dims``: insert an axis of length one (a view)."""

from __future__ import annotations

from typing import Any

from kusari.function_node import FunctionNode
from kusari.utils import type_check
from kusari.variable import Variable


class ExpandDims(FunctionNode):
    """Insert a length-one axis at ``axis``."""

    def __init__(self, axis: int) -> None:
        if not isinstance(axis, int) or isinstance(axis, bool):
            raise TypeError(
                f"expand_dims: axis must be an int, got {type(axis).__name__}"
            )
        self.axis = axis

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        x = in_types[0]
        if self.axis >= 0:
            type_check.expect(x.ndim >= self.axis)
        else:
            type_check.expect(x.ndim >= -self.axis - 1)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = inputs
        self._in_shape = x.shape
        axis = self.axis % (x.ndim + 1)
        return (x.reshape(x.shape[:axis] + (1,) + x.shape[axis:]),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        from kusari.functions.array.reshape import Reshape

        # Always a node (``reshape`` returns its input when the shape matches).
        return Reshape(self._in_shape).apply(grad_outputs)


def expand_dims(x: Any, axis: int) -> Variable:
    """Insert an axis of length one at ``axis`` (negative counts from the end).

    Args:
        x: Input variable.
        axis: Where the new axis goes, in ``[-x.ndim - 1, x.ndim]``.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.expand_dims(np.zeros((2, 3), np.float32), 1).shape
        (2, 1, 3)
    """
    return ExpandDims(axis).apply((x,))[0]
