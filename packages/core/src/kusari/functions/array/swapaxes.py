"""``swapaxes``: exchange two axes (a view)."""

from __future__ import annotations

from typing import Any

from kusari.functions.array._permute import Permute
from kusari.utils import type_check
from kusari.variable import Variable


class Swapaxes(Permute):
    """Swap ``axis1`` and ``axis2``."""

    def __init__(self, axis1: int, axis2: int) -> None:
        self.axis1 = axis1
        self.axis2 = axis2

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        x = in_types[0]
        for a in (self.axis1, self.axis2):
            type_check.expect(-x.ndim <= a, a < x.ndim)

    def perm(self, ndim: int) -> tuple[int, ...]:
        p = list(range(ndim))
        a, b = self.axis1 % ndim, self.axis2 % ndim
        p[a], p[b] = p[b], p[a]
        return tuple(p)


def swapaxes(x: Any, axis1: int, axis2: int) -> Variable:
    """Swap two axes of ``x``.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.swapaxes(np.zeros((2, 3, 4), np.float32), 0, 2).shape
        (4, 3, 2)
    """
    return Swapaxes(axis1, axis2).apply((x,))[0]
