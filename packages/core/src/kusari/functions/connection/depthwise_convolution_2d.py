"""Depthwise 2-d convolution (a grouped convolution with one group per channel)."""

from __future__ import annotations

from typing import Any

from kusari.functions.connection.convolution_nd import ConvolutionND
from kusari.utils import type_check
from kusari.variable import Variable


def depthwise_convolution_2d(
    x: Any, W: Any, b: Any = None, stride: Any = 1, pad: Any = 0
) -> Variable:
    """Two-dimensional depthwise convolution.

    Every input channel ``c`` is convolved with its ``c_M`` filters
    ``W[:, c]``; output channel ``c * c_M + m`` holds filter ``m`` of channel
    ``c``.

    Args:
        x: Input of shape ``(n, c_I, h, w)``.
        W: Filters of shape ``(c_M, c_I, k_H, k_W)``.
        b: Optional bias of shape ``(c_M * c_I,)``.
        stride: Stride ``s`` or ``(s_Y, s_X)``.
        pad: Zero padding ``p`` or ``(p_H, p_W)``.

    Returns:
        Output of shape ``(n, c_I * c_M, h_O, w_O)``.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> x = np.ones((1, 2, 3, 3), np.float32)
        >>> W = np.ones((2, 2, 2, 2), np.float32)
        >>> F.depthwise_convolution_2d(x, W).shape
        (1, 4, 2, 2)
    """
    from kusari.functions.array.reshape import reshape
    from kusari.functions.array.transpose import transpose

    x_shape, w_shape = tuple(x.shape), tuple(W.shape)
    if len(x_shape) != 4 or len(w_shape) != 4 or x_shape[1] != w_shape[1]:
        raise type_check.InvalidType(
            "x.ndim == 4, W.ndim == 4, x.shape[1] == W.shape[1]",
            f"x.shape={x_shape}, W.shape={w_shape}",
            "Invalid operation is performed in: DepthwiseConvolution2D (Forward)\n\n"
            f"Expect: x.ndim == 4, W.ndim == 4, x.shape[1] == W.shape[1]\n"
            f"Actual: x.shape={x_shape}, W.shape={w_shape}",
        )
    M, C, kh, kw = w_shape
    Wg = reshape(transpose(W, (1, 0, 2, 3)), (C * M, 1, kh, kw))
    node = ConvolutionND(2, stride, pad, False, 1, C, fname="depthwise_convolution_2d")
    return node.apply((x, Wg) if b is None else (x, Wg, b))[0]
