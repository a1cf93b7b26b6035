"""``separate``: the slices of an array along an axis, as separate views."""

from __future__ import annotations

from typing import Any

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.utils import type_check
from kusari.variable import Variable


class Separate(FunctionNode):
    """Split along ``axis`` into ``x.shape[axis]`` arrays without that axis."""

    def __init__(self, axis: int) -> None:
        if not isinstance(axis, int) or isinstance(axis, bool):
            raise TypeError(f"separate: axis must be an int, got {type(axis).__name__}")
        self.axis = axis

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        x = in_types[0]
        if self.axis >= 0:
            type_check.expect(self.axis < x.ndim)
        else:
            type_check.expect(-self.axis <= x.ndim)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = inputs
        axis = self.axis % x.ndim
        self._axis = axis
        self._shape = x.shape[:axis] + x.shape[axis + 1 :]
        self._dtype = x.dtype
        self._xp = backend.get_array_module(x)
        index: list[Any] = [slice(None)] * x.ndim
        outs = []
        for i in range(x.shape[axis]):
            index[axis] = i
            outs.append(x[(*index, Ellipsis)])  # `...` keeps 0-d results arrays
        return tuple(outs)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        from kusari.functions.array.stack import stack

        gys = [
            Variable(
                self._xp.zeros(self._shape, dtype=self._dtype), requires_grad=False
            )
            if g is None
            else g
            for g in grad_outputs
        ]
        return (stack(gys, self._axis),)


def separate(x: Any, axis: int = 0) -> tuple[Variable, ...]:
    """Separate ``x`` along ``axis`` into ``x.shape[axis]`` variables (views).

    Args:
        x: Input variable.
        axis: The axis to separate along; it is removed from the outputs.

    Returns:
        A tuple of Variables.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> [y.shape for y in F.separate(np.zeros((2, 3), np.float32), axis=1)]
        [(2,), (2,), (2,)]
    """
    return Separate(axis).apply((x,))
