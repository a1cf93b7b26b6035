"""``rollaxis``: roll one axis back to a position (a view)."""

from __future__ import annotations

from typing import Any

from kusari.functions.array._permute import Permute
from kusari.utils import type_check
from kusari.variable import Variable


class Rollaxis(Permute):
    """Move ``axis`` so that it lies before ``start`` (NumPy's rollaxis)."""

    def __init__(self, axis: int, start: int) -> None:
        for name, v in (("axis", axis), ("start", start)):
            if not isinstance(v, int) or isinstance(v, bool):
                raise TypeError(
                    f"rollaxis: {name} must be an int, got {type(v).__name__}"
                )
        self.axis = axis
        self.start = start

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        x = in_types[0]
        if self.axis >= 0:
            type_check.expect(x.ndim > self.axis)
        else:
            type_check.expect(-self.axis - 1 < x.ndim)
        if self.start >= 0:
            type_check.expect(x.ndim >= self.start)
        else:
            type_check.expect(-self.start - 1 < x.ndim)

    def perm(self, ndim: int) -> tuple[int, ...]:
        axis = self.axis % ndim
        start = self.start + ndim if self.start < 0 else self.start
        order = list(range(ndim))
        if axis < start:
            start -= 1
        order.remove(axis)
        order.insert(start, axis)
        return tuple(order)


def rollaxis(x: Any, axis: int, start: int = 0) -> Variable:
    """Roll ``axis`` backwards until it lies at ``start``.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.rollaxis(np.zeros((2, 3, 4), np.float32), 2).shape
        (4, 2, 3)
    """
    return Rollaxis(axis, start).apply((x,))[0]
