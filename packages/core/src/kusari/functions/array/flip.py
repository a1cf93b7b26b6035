"""``flip``: reverse the order of elements along an axis (a view)."""

from __future__ import annotations

from typing import Any

from kusari.function_node import FunctionNode
from kusari.utils import type_check
from kusari.variable import Variable


def _flip(array: Any, axis: int) -> Any:
    """Reverse a raw array along ``axis`` (a view; v7 keeps this helper too)."""
    index = [slice(None)] * array.ndim
    index[axis] = slice(None, None, -1)
    return array[tuple(index)]


class Flip(FunctionNode):
    """Reverse ``axis``."""

    def __init__(self, axis: int) -> None:
        if not isinstance(axis, int) or isinstance(axis, bool):
            raise TypeError(f"flip: axis must be an int, got {type(axis).__name__}")
        self.axis = axis

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        x = in_types[0]
        if self.axis >= 0:
            type_check.expect(x.ndim > self.axis)
        else:
            type_check.expect(x.ndim >= -self.axis)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = inputs
        return (_flip(x, self.axis),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        return (flip(grad_outputs[0], self.axis),)


def flip(x: Any, axis: int) -> Variable:
    """Reverse the elements of ``x`` along ``axis``.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.flip(np.arange(3, dtype=np.float32), 0).array
        array([2., 1., 0.], dtype=float32)
    """
    return Flip(axis).apply((x,))[0]
