"""``vstack``: concatenate vertically (along axis 0; 1-D inputs become rows)."""

from __future__ import annotations

from typing import Any

from kusari.functions.array._stacking import stack_along
from kusari.variable import Variable


def _lift(shape: tuple[int, ...]) -> tuple[int, ...]:
    return (1, shape[0]) if len(shape) == 1 else (1, 1)


def vstack(xs: Any) -> Variable:
    """Concatenate variables vertically, as ``numpy.vstack``.

    Inputs with fewer than two axes are lifted to shape ``(1, N)`` first.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.vstack([np.zeros(3, np.float32), np.ones(3, np.float32)]).shape
        (2, 3)
    """
    return stack_along(xs, "Vstack", 2, _lift, lambda ndim: 0)
