"""Softmax."""

from __future__ import annotations

from typing import Any

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.utils import type_check
from kusari.variable import Variable


class Softmax(FunctionNode):
    """``exp(x) / sum(exp(x))`` along an axis."""

    def __init__(self, axis: int = 1) -> None:
        self.axis = axis

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        x = in_types[0]
        type_check.expect(x.dtype.kind == "f", -x.ndim <= self.axis, self.axis < x.ndim)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_outputs((0,))
        (x,) = inputs
        xp = backend.get_array_module(x)
        y = x - x.max(axis=self.axis, keepdims=True)
        xp.exp(y, out=y)
        y /= y.sum(axis=self.axis, keepdims=True)
        return (y,)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        from kusari.functions.array.broadcast import broadcast_to
        from kusari.functions.math.sum import sum as _sum

        (y,) = self.get_retained_outputs()
        (gy,) = grad_outputs
        gx = y * gy
        s = broadcast_to(_sum(gx, axis=self.axis, keepdims=True), gx.shape)
        return (gx - y * s,)


def softmax(x: Any, axis: int = 1) -> Variable:
    """Softmax along ``axis``.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.softmax(np.zeros((1, 2), np.float32)).array
        array([[0.5, 0.5]], dtype=float32)
    """
    return Softmax(axis).apply((x,))[0]
