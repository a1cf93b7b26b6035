"""``concat``: join arrays along an existing axis."""

from __future__ import annotations

from typing import Any

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.utils import type_check
from kusari.variable import Variable


class Concat(FunctionNode):
    """Concatenate the inputs along ``axis``."""

    def __init__(self, axis: int = 1) -> None:
        if not isinstance(axis, int) or isinstance(axis, bool):
            raise TypeError(f"concat: axis must be an int, got {type(axis).__name__}")
        self.axis = axis

    def check_type_forward(self, in_types: Any) -> None:
        type_check.expect(in_types.size() > 0)
        x0 = in_types[0]
        type_check.expect(-x0.ndim <= self.axis, self.axis < x0.ndim)
        ndim = type_check.eval(x0.ndim)
        axis = self.axis % ndim
        for i in range(1, type_check.eval(in_types.size())):
            x = in_types[i]
            type_check.expect(x0.dtype == x.dtype, x0.ndim == x.ndim)
            for d in range(ndim):
                if d != axis:
                    type_check.expect(x0.shape[d] == x.shape[d])

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        xp = backend.get_array_module(*inputs)
        axis = self.axis % inputs[0].ndim
        self._axis = axis
        self._sizes = [x.shape[axis] for x in inputs]
        return (xp.concatenate(inputs, axis=axis),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        from kusari.functions.array.split_axis import split_axis

        (gy,) = grad_outputs
        points = []
        total = 0
        for s in self._sizes[:-1]:
            total += s
            points.append(total)
        return split_axis(gy, points, self._axis, force_tuple=True)


def concat(xs: Any, axis: int = 1) -> Variable:
    """Concatenate variables along ``axis``.

    Args:
        xs: A list or tuple of variables with equal shapes except along
            ``axis`` and one dtype.
        axis: The axis to join along (default 1, as in Chainer).

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.concat([np.zeros((2, 1), np.float32), np.ones((2, 2), np.float32)]).shape
        (2, 3)
    """
    return Concat(axis).apply(tuple(xs))[0]
