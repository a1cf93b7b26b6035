"""``depth2space``: move channel blocks into spatial blocks (pixel shuffle)."""

from __future__ import annotations

from typing import Any

from kusari.function_node import FunctionNode
from kusari.utils import type_check
from kusari.variable import Variable


def _check_r(r: Any, name: str) -> int:
    if not isinstance(r, int) or isinstance(r, bool) or r < 1:
        raise ValueError(f"{name}: r must be a positive int, got {r!r}")
    return r


class Depth2Space(FunctionNode):
    """``(n, r*r*c, h, w)`` to ``(n, c, h*r, w*r)``."""

    def __init__(self, r: int) -> None:
        self.r = _check_r(r, "depth2space")

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("X",))
        x = in_types[0]
        type_check.expect(
            x.dtype.kind == "f", x.ndim == 4, x.shape[1] % (self.r * self.r) == 0
        )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = inputs
        n, c, h, w = x.shape
        r = self.r
        y = x.reshape(n, r, r, c // (r * r), h, w).transpose(0, 3, 4, 1, 5, 2)
        return (y.reshape(n, c // (r * r), h * r, w * r),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        from kusari.functions.array.space2depth import space2depth

        return (space2depth(grad_outputs[0], self.r),)


def depth2space(X: Any, r: int) -> Variable:
    """Rearrange depth into spatial blocks of size ``r x r``.

    Input channel ``(i * r + j) * c + k`` goes to channel ``k`` at offset
    ``(i, j)`` of each block (the TensorFlow ordering, as Chainer).

    Args:
        X: Variable of shape ``(n, r * r * c, h, w)``.
        r: The block size.

    Returns:
        Variable of shape ``(n, c, h * r, w * r)``.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.depth2space(np.zeros((1, 8, 2, 3), np.float32), 2).shape
        (1, 2, 4, 6)
    """
    return Depth2Space(r).apply((X,))[0]
