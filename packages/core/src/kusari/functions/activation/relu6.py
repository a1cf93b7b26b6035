"""ReLU6, ``min(max(0, x), 6)``."""

from __future__ import annotations

from typing import Any

from kusari.functions.activation.clipped_relu import ClippedReLU
from kusari.variable import Variable


def relu6(x: Any) -> Variable:
    """Rectified linear unit capped at 6, ``min(max(0, x), 6)``.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.relu6(np.array([-1., 2., 7.], np.float32)).array
        array([0., 2., 6.], dtype=float32)
    """
    return ClippedReLU(6.0).apply((x,))[0]
