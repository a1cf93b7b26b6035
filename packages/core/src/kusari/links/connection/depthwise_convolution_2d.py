"""The depthwise convolution link (``DepthwiseConvolution2D``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy

from kusari import initializers, link, variable
from kusari.functions.connection import depthwise_convolution_2d as dw_module
from kusari.links._params import bias_parameter
from kusari.links.connection.convolution_2d import _pair


class DepthwiseConvolution2D(link.Link):
    """Two-dimensional depthwise convolutional layer.

    Every input channel is convolved with its own ``channel_multiplier``
    filters; ``W`` has shape ``(channel_multiplier, in_channels, kh, kw)``
    and ``b`` shape ``(channel_multiplier * in_channels,)``.

    Args:
        in_channels: Number of input channels; None for lazy initialization.
        channel_multiplier: Number of filters per input channel.
        ksize: Filter size ``k`` or ``(kh, kw)``.
        stride: Stride.
        pad: Zero padding.
        nobias: Leave out the bias.
        initialW: Initializer of ``W``; ``HeNormal(1 / sqrt(2))`` by default.
        initial_bias: Initializer of ``b``; zero by default.

    Example:
        >>> import numpy as np
        >>> import kusari.links as L
        >>> dw = L.DepthwiseConvolution2D(3, 2, 3, pad=1)
        >>> dw(np.zeros((1, 3, 5, 5), np.float32)).shape
        (1, 6, 5, 5)
    """

    def __init__(
        self,
        in_channels: int | None,
        channel_multiplier: int,
        ksize: Any,
        stride: Any = 1,
        pad: Any = 0,
        nobias: bool = False,
        initialW: Any = None,
        initial_bias: Any = None,
    ) -> None:
        super().__init__()
        self.ksize = ksize
        self.stride = _pair(stride)
        self.pad = _pair(pad)
        self.channel_multiplier = channel_multiplier
        self.nobias = nobias
        if initialW is None:
            initialW = initializers.HeNormal(1.0 / numpy.sqrt(2))
        with self.init_scope():
            self.W = variable.Parameter(initializers._get_initializer(initialW))
            if nobias:
                self.b = None
            else:
                self.b = bias_parameter(None, initial_bias)  # shape set later
        if in_channels is not None:
            self._initialize_params(in_channels)

    def _initialize_params(self, in_channels: int) -> None:
        kh, kw = _pair(self.ksize)
        self.W.initialize((self.channel_multiplier, in_channels, kh, kw))
        if self.b is not None:
            self.b.initialize(self.channel_multiplier * in_channels)

    @property
    def printable_specs(self) -> Iterator[tuple[str, Any]]:
        in_channels = None if self.W.array is None else self.W.shape[1]
        yield "in_channels", in_channels
        yield "channel_multiplier", self.channel_multiplier
        yield "ksize", self.ksize
        yield "stride", self.stride
        yield "pad", self.pad
        yield "nobias", self.nobias

    def forward(self, x: Any) -> Any:
        if self.W.array is None:
            self._initialize_params(x.shape[1])
        return dw_module.depthwise_convolution_2d(
            x, self.W, self.b, self.stride, self.pad
        )
