"""Convolution, batch normalization, activation."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import kusari.functions as F
import kusari.links as L
from kusari_cv.links.connection._conv_block import (
    ConvBlock,
    batch_normalization_link,
)

# Kept importable from here, where it was defined before ConvBlock.
__all__ = ["Conv2DBNActiv", "batch_normalization_link"]


class Conv2DBNActiv(ConvBlock):
    """Convolution, then batch normalization, then an activation.

    The arguments are those of :class:`~kusari.links.Convolution2D` plus
    ``activ`` and ``bn_kwargs``; ``in_channels`` may be left out as there.
    The child links are ``conv`` and ``bn`` (ChainerCV's names, so its
    weight files load).

    Args:
        in_channels: Input channels, or None to infer them.
        out_channels: Output channels.
        ksize: Kernel size.
        stride: Stride.
        pad: Zero padding.
        dilate: Dilation factor.
        groups: Number of channel groups.
        nobias: Leave out the convolution's bias (the default: batch
            normalization has its own shift).
        initialW: Initializer for the kernel.
        initial_bias: Initializer for the bias.
        activ: Activation; None for none.
        bn_kwargs: Keyword arguments of the batch normalization link
            (``decay``, ``eps``, ``comm`` for a multi-node one, ...).

    Example:
        >>> import numpy as np
        >>> from kusari_cv.links import Conv2DBNActiv
        >>> link = Conv2DBNActiv(3, 8, 3, 2, 1)
        >>> link(np.zeros((2, 3, 8, 8), np.float32)).shape
        (2, 8, 4, 4)
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
        nobias: bool = True,
        initialW: Any = None,
        initial_bias: Any = None,
        activ: Callable[[Any], Any] | None = F.relu,
        bn_kwargs: dict[str, Any] | None = None,
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
            {} if bn_kwargs is None else bn_kwargs,
        )
