"""Convolution followed by an activation."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import kusari.functions as F
import kusari.links as L
from kusari_cv.links.connection._conv_block import ConvBlock


class Conv2DActiv(ConvBlock):
    """:class:`~kusari.links.Convolution2D` followed by an activation.

    The arguments are those of :class:`~kusari.links.Convolution2D` plus
    ``activ``. As there, ``in_channels`` may be left out (or None) to infer it
    from the first input: ``Conv2DActiv(10, 3)`` is ``Conv2DActiv(None, 10, 3)``.

    Args:
        in_channels: Input channels, or None to infer them.
        out_channels: Output channels.
        ksize: Kernel size ``k`` or ``(kh, kw)``.
        stride: Stride.
        pad: Zero padding.
        dilate: Dilation factor.
        groups: Number of channel groups.
        nobias: Leave out the bias.
        initialW: Initializer (or array) for the kernel.
        initial_bias: Initializer (or array) for the bias.
        activ: Activation applied to the convolution's output; None for
            none (identity).

    Example:
        >>> import numpy as np
        >>> from kusari_cv.links import Conv2DActiv
        >>> link = Conv2DActiv(3, 8, 3, pad=1)
        >>> link(np.zeros((1, 3, 5, 5), np.float32)).shape
        (1, 8, 5, 5)
    """

    def __init__(
        self,
        in_channels: int | None,
        out_channels: Any,
        ksize: Any = None,
        stride: Any = 1,
        pad: Any = 0,
        dilate: Any = 1,
        groups: int = 1,
        nobias: bool = False,
        initialW: Any = None,
        initial_bias: Any = None,
        activ: Callable[[Any], Any] | None = F.relu,
    ) -> None:
        super().__init__(
            L.Convolution2D,
            in_channels,
            out_channels,
            ksize,
            stride,
            pad,
            dilate,
            groups,
            nobias,
            initialW,
            initial_bias,
            activ,
            None,
        )
