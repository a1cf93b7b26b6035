"""Dilated 2-d convolution (``convolution_2d`` with ``dilate``)."""

from __future__ import annotations

from typing import Any

from kusari.functions.connection.convolution_nd import ConvolutionND
from kusari.variable import Variable


def dilated_convolution_2d(
    x: Any,
    W: Any,
    b: Any = None,
    stride: Any = 1,
    pad: Any = 0,
    dilate: Any = 1,
    cover_all: bool = False,
) -> Variable:
    """2-dimensional dilated convolution.

    Same as ``convolution_2d(x, W, b, stride, pad, cover_all, dilate=dilate)``.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> x = np.ones((1, 1, 5, 5), np.float32)
        >>> W = np.ones((1, 1, 2, 2), np.float32)
        >>> F.dilated_convolution_2d(x, W, dilate=2).shape
        (1, 1, 3, 3)
    """
    if len(x.shape) != 4:
        raise ValueError(
            f"dilated_convolution_2d: x must be 4-dimensional, got shape "
            f"{tuple(x.shape)}"
        )
    node = ConvolutionND(
        2, stride, pad, cover_all, dilate, 1, fname="dilated_convolution_2d"
    )
    return node.apply((x, W) if b is None else (x, W, b))[0]
