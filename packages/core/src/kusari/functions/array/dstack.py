"""``dstack``: concatenate depth-wise (along axis 2)."""

from __future__ import annotations

from typing import Any

from kusari.functions.array._stacking import stack_along
from kusari.variable import Variable


def _lift(shape: tuple[int, ...]) -> tuple[int, ...]:
    if len(shape) == 0:
        return (1, 1, 1)
    if len(shape) == 1:
        return (1, shape[0], 1)
    return shape + (1,)


def dstack(xs: Any) -> Variable:
    """Concatenate variables along the third axis, as ``numpy.dstack``.

    Inputs are lifted to three axes first: ``(N,)`` to ``(1, N, 1)`` and
    ``(M, N)`` to ``(M, N, 1)``.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.dstack([np.zeros((2, 3), np.float32), np.ones((2, 3), np.float32)]).shape
        (2, 3, 2)
    """
    return stack_along(xs, "Dstack", 3, _lift, lambda ndim: 2)
