"""2-d transposed convolution ``deconvolution_2d``."""

from __future__ import annotations

from typing import Any

from kusari.functions.connection.deconvolution_nd import DeconvolutionND
from kusari.variable import Variable


class Deconvolution2DFunction(DeconvolutionND):
    """2-d transposed convolution node with Chainer's constructor signature."""

    def __init__(
        self, stride: Any = 1, pad: Any = 0, outsize: Any = None, **kwargs: Any
    ) -> None:
        dilate = kwargs.pop("dilate", 1)
        groups = kwargs.pop("groups", 1)
        if kwargs:
            raise TypeError(f"deconvolution_2d: unexpected arguments {sorted(kwargs)}")
        super().__init__(
            2, stride, pad, outsize, dilate, groups, fname="deconvolution_2d"
        )


def deconvolution_2d(
    x: Any,
    W: Any,
    b: Any = None,
    stride: Any = 1,
    pad: Any = 0,
    outsize: Any = None,
    *,
    dilate: Any = 1,
    groups: int = 1,
) -> Variable:
    """2-dimensional transposed convolution (the adjoint of :func:`convolution_2d`).

    Args:
        x: Input of shape ``(n, c_I, h, w)``.
        W: Filter of shape ``(c_I, c_O / groups, k_H, k_W)``.
        b: Optional bias of shape ``(c_O,)``.
        stride: Stride ``s`` or ``(s_Y, s_X)``.
        pad: Padding ``p`` or ``(p_H, p_W)`` removed from the output.
        outsize: ``(h_O, w_O)``; inferred as ``s (h - 1) + k - 2p`` if None.
        dilate: Dilation of the filter.
        groups: Number of channel groups.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> x = np.ones((1, 1, 2, 2), np.float32)
        >>> W = np.ones((1, 1, 2, 2), np.float32)
        >>> F.deconvolution_2d(x, W, stride=2).shape
        (1, 1, 4, 4)
    """
    if len(x.shape) != 4:
        raise ValueError(
            f"deconvolution_2d: x must be 4-dimensional (N, C, H, W), got "
            f"shape {tuple(x.shape)}"
        )
    node = Deconvolution2DFunction(stride, pad, outsize, dilate=dilate, groups=groups)
    return node.apply((x, W) if b is None else (x, W, b))[0]
