"""``select_item``: pick one element per row, ``y[i] = x[i, t[i]]``."""

from __future__ import annotations

from typing import Any

import kusari
from kusari import backend
from kusari.function_node import FunctionNode
from kusari.utils import type_check
from kusari.variable import Variable


class SelectItem(FunctionNode):
    """Select ``x[i, t[i]]`` for each row ``i``."""

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x", "t"))
        x, t = in_types
        type_check.expect(
            t.dtype.kind == "i", x.ndim == 2, t.ndim == 1, x.shape[0] == t.shape[0]
        )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((1,))
        x, t = inputs
        if kusari.is_debug():
            if not ((0 <= t).all() and (t < x.shape[1]).all()):
                raise ValueError(
                    f"select_item: out of bounds index (t={t}, x.shape={x.shape})"
                )
        xp = backend.get_array_module(x)
        self._in_shape = x.shape
        return (x[xp.arange(t.size), t],)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        (t,) = self.get_retained_inputs()
        gx = SelectItemGrad(t.array, self._in_shape).apply(grad_outputs)[0]
        return gx, None


class SelectItemGrad(FunctionNode):
    """Put ``gy[i]`` at ``(i, t[i])`` of a zero array."""

    def __init__(self, t: Any, shape: tuple[int, ...]) -> None:
        self.t = t
        self.shape = shape

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (gy,) = inputs
        xp = backend.get_array_module(gy)
        gx = xp.zeros(self.shape, dtype=gy.dtype)
        gx[xp.arange(self.t.size), self.t] = gy
        return (gx,)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        return (select_item(grad_outputs[0], self.t),)


def select_item(x: Any, t: Any) -> Variable:
    """Select one element per row: ``y[i] = x[i, t[i]]``.

    Args:
        x: Variable of shape ``(B, N)``.
        t: Integer array (or Variable) of shape ``(B,)`` with values in
            ``[0, N)``; not differentiated.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> x = np.arange(6, dtype=np.float32).reshape(2, 3)
        >>> F.select_item(x, np.array([2, 0], np.int32)).array
        array([2., 3.], dtype=float32)
    """
    return SelectItem().apply((x, t))[0]
