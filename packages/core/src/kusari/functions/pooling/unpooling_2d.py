"""2-d unpooling ``unpooling_2d``."""

from __future__ import annotations

from typing import Any

from kusari.functions.pooling.unpooling_nd import _unpool
from kusari.variable import Variable


def unpooling_2d(
    x: Any,
    ksize: Any,
    stride: Any = None,
    pad: Any = 0,
    outsize: Any = None,
    cover_all: bool = True,
) -> Variable:
    """Inverse of 2-d pooling: each value is spread over (added into) its window.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> x = np.array([[[[1., 2.], [3., 4.]]]], np.float32)
        >>> F.unpooling_2d(x, 2, cover_all=False).array[0, 0]
        array([[1., 1., 2., 2.],
               [1., 1., 2., 2.],
               [3., 3., 4., 4.],
               [3., 3., 4., 4.]], dtype=float32)
    """
    return _unpool(x, 2, ksize, stride, pad, outsize, cover_all, "unpooling_2d")
