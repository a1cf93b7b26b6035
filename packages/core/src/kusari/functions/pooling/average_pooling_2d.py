"""2-d average pooling ``average_pooling_2d``."""

from __future__ import annotations

from typing import Any

from kusari.functions.pooling.average_pooling_nd import _avg_pool
from kusari.variable import Variable


def average_pooling_2d(
    x: Any, ksize: Any, stride: Any = None, pad: Any = 0
) -> Variable:
    """Spatial average pooling of ``x`` ``(n, c, h, w)``.

    As in Chainer, every window is divided by ``k_H * k_W`` (padding counts as
    zeros).

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
        >>> F.average_pooling_2d(x, 2).array
        array([[[[ 2.5,  4.5],
                 [10.5, 12.5]]]], dtype=float32)
    """
    if len(x.shape) != 4:
        raise ValueError(
            f"average_pooling_2d: x must be 4-dimensional (N, C, H, W), got "
            f"shape {tuple(x.shape)}"
        )
    return _avg_pool(x, 2, ksize, stride, pad, 0, "average_pooling_2d")
