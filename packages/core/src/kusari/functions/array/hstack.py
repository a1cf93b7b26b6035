"""``hstack``: concatenate horizontally (along axis 1, or 0 for 1-D inputs)."""

from __future__ import annotations

from typing import Any

from kusari.functions.array._stacking import stack_along
from kusari.variable import Variable


def hstack(xs: Any) -> Variable:
    """Concatenate variables horizontally, as ``numpy.hstack``.

    0-D inputs become 1-D; 1-D inputs are joined along axis 0, others along
    axis 1.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.hstack([np.zeros((2, 1), np.float32), np.ones((2, 2), np.float32)]).shape
        (2, 3)
    """
    return stack_along(
        xs, "Hstack", 1, lambda s: (1,), lambda ndim: 0 if ndim == 1 else 1
    )
