"""``scale``: multiply ``x`` by a lower-rank array broadcast from ``axis``."""

from __future__ import annotations

from typing import Any

from kusari.functions.math.bias import _broadcast_from_axis
from kusari.variable import Variable, as_variable


def scale(x: Any, y: Any, axis: int = 1) -> Variable:
    """Elementwise ``x * y`` with ``y`` broadcast along ``x``'s axes from ``axis``.

    ``y.shape`` must equal ``x.shape[axis:axis + y.ndim]``.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> x = np.ones((2, 3), np.float32)
        >>> F.scale(x, np.arange(3, dtype=np.float32)).array
        array([[0., 1., 2.],
               [0., 1., 2.]], dtype=float32)
    """
    x = as_variable(x)
    return x * _broadcast_from_axis(x, as_variable(y), axis, "scale")
