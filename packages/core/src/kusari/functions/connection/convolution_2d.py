"""2-d convolution ``convolution_2d`` (the N-d kernel with two spatial axes)."""

from __future__ import annotations

from typing import Any

from kusari.functions.connection.convolution_nd import ConvolutionND
from kusari.variable import Variable


class Convolution2DFunction(ConvolutionND):
    """2-d convolution node with Chainer's constructor signature."""

    def __init__(
        self, stride: Any = 1, pad: Any = 0, cover_all: bool = False, **kwargs: Any
    ) -> None:
        dilate = kwargs.pop("dilate", 1)
        groups = kwargs.pop("groups", 1)
        if kwargs:
            raise TypeError(f"convolution_2d: unexpected arguments {sorted(kwargs)}")
        super().__init__(
            2, stride, pad, cover_all, dilate, groups, fname="convolution_2d"
        )


def convolution_2d(
    x: Any,
    W: Any,
    b: Any = None,
    stride: Any = 1,
    pad: Any = 0,
    cover_all: bool = False,
    *,
    dilate: Any = 1,
    groups: int = 1,
) -> Variable:
    """2-dimensional convolution.

    Args:
        x: Input of shape ``(n, c_I, h, w)``.
        W: Filter of shape ``(c_O, c_I / groups, k_H, k_W)``.
        b: Optional bias of shape ``(c_O,)``.
        stride: Stride ``s`` or ``(s_Y, s_X)``.
        pad: Zero padding ``p`` or ``(p_H, p_W)`` on both sides.
        cover_all: Extend the output so every input pixel is covered.
        dilate: Dilation ``d`` or ``(d_Y, d_X)`` of the filter.
        groups: Number of channel groups.

    Returns:
        Output of shape ``(n, c_O, h_O, w_O)``.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
        >>> W = np.ones((1, 1, 2, 2), np.float32)
        >>> F.convolution_2d(x, W, stride=2).array
        array([[[[10., 18.],
                 [42., 50.]]]], dtype=float32)
    """
    if len(x.shape) != 4:
        raise ValueError(
            f"convolution_2d: x must be 4-dimensional (N, C, H, W), got "
            f"shape {tuple(x.shape)}"
        )
    node = Convolution2DFunction(stride, pad, cover_all, dilate=dilate, groups=groups)
    return node.apply((x, W) if b is None else (x, W, b))[0]
