"""``stack``: join arrays along a new axis."""

from __future__ import annotations

from typing import Any

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.utils import type_check
from kusari.variable import Variable


class Stack(FunctionNode):
    """Stack the inputs along a new ``axis``."""

    def __init__(self, axis: int = 0) -> None:
        if not isinstance(axis, int) or isinstance(axis, bool):
            raise TypeError(f"stack: axis must be an int, got {type(axis).__name__}")
        self.axis = axis

    def check_type_forward(self, in_types: Any) -> None:
        type_check.expect(in_types.size() > 0)
        x0 = in_types[0]
        if self.axis >= 0:
            type_check.expect(self.axis <= x0.ndim)
        else:
            type_check.expect(-self.axis <= x0.ndim + 1)
        for i in range(1, type_check.eval(in_types.size())):
            x = in_types[i]
            type_check.expect(x0.shape == x.shape, x0.dtype == x.dtype)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        xp = backend.get_array_module(*inputs)
        self._axis = self.axis % (inputs[0].ndim + 1)
        return (xp.stack(inputs, axis=self._axis),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        from kusari.functions.array.separate import separate

        return separate(grad_outputs[0], self._axis)


def stack(xs: Any, axis: int = 0) -> Variable:
    """Stack variables of one shape along a new axis.

    Args:
        xs: A list or tuple of variables of the same shape and dtype.
        axis: Where the new axis goes, in ``[-ndim - 1, ndim]``.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.stack([np.zeros(3, np.float32), np.ones(3, np.float32)], axis=1).shape
        (3, 2)
    """
    return Stack(axis).apply(tuple(xs))[0]
