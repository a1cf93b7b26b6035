"""``space2depth``: move spatial blocks into channels (inverse of depth2space)."""

from __future__ import annotations

from typing import Any

from kusari.function_node import FunctionNode
from kusari.functions.array.depth2space import _check_r
from kusari.utils import type_check
from kusari.variable import Variable


class Space2Depth(FunctionNode):
    """``(n, c, h*r, w*r)`` to ``(n, r*r*c, h, w)``."""

    def __init__(self, r: int) -> None:
        self.r = _check_r(r, "space2depth")

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("X",))
        x = in_types[0]
        type_check.expect(
            x.dtype.kind == "f",
            x.ndim == 4,
            x.shape[2] % self.r == 0,
            x.shape[3] % self.r == 0,
        )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = inputs
        n, c, h, w = x.shape
        r = self.r
        y = x.reshape(n, c, h // r, r, w // r, r).transpose(0, 3, 5, 1, 2, 4)
        return (y.reshape(n, r * r * c, h // r, w // r),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        from kusari.functions.array.depth2space import depth2space

        return (depth2space(grad_outputs[0], self.r),)


def space2depth(X: Any, r: int) -> Variable:
    """Rearrange ``r x r`` spatial blocks into depth.

    Args:
        X: Variable of shape ``(n, c, h * r, w * r)``.
        r: The block size.

    Returns:
        Variable of shape ``(n, r * r * c, h, w)``.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.space2depth(np.zeros((1, 2, 4, 6), np.float32), 2).shape
        (1, 8, 2, 3)
    """
    return Space2Depth(r).apply((X,))[0]
