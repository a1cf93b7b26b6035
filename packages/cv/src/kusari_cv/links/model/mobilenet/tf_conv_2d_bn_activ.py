"""TensorFlow-padded convolution, batch normalization, activation."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import kusari.functions as F
from kusari_cv.links.connection._conv_block import ConvBlock
from kusari_cv.links.model.mobilenet.tf_convolution_2d import TFConvolution2D


class TFConv2DBNActiv(ConvBlock):
    """:class:`TFConvolution2D`, then batch normalization, then an activation.

    Like :class:`~kusari_cv.links.Conv2DBNActiv`, but ``pad`` may be
    TensorFlow's ``'SAME'`` (the default) or ``'VALID'``. ``in_channels`` may
    be left out. The child links are ``conv`` and ``bn``.

    Args:
        in_channels: Input channels, or None to infer them.
        out_channels: Output channels.
        ksize: Kernel size.
        stride: Stride.
        pad: ``'SAME'``, ``'VALID'`` or an explicit padding.
        dilate: Dilation factor.
        groups: Number of channel groups.
        nobias: Leave out the convolution's bias (the default).
        initialW: Initializer of the kernel.
        initial_bias: Initializer of the bias.
        activ: Activation; None for none.
        bn_kwargs: Keyword arguments of the batch normalization link
            (``decay``, ``eps``, ``comm`` for a multi-node one, ...).

    Example:
        >>> import numpy as np
        >>> link = TFConv2DBNActiv(3, 8, 3, stride=2)
        >>> link(np.zeros((2, 3, 9, 9), np.float32)).shape
        (2, 8, 5, 5)
    """

    def __init__(
        self,
        in_channels: int | None,
        out_channels: Any,
        ksize: Any = None,
        stride: Any = 1,
        pad: Any = "SAME",
        dilate: Any = 1,
        groups: int = 1,
        nobias: bool = True,
        initialW: Any = None,
        initial_bias: Any = None,
        activ: Callable[[Any], Any] | None = F.relu,
        bn_kwargs: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(
            TFConvolution2D,
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
