"""The locally connected convolution link (``LocalConvolution2D``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kusari import initializers, link, variable
from kusari.functions.connection import local_convolution_2d as local_module
from kusari.links._params import bias_parameter
from kusari.links.connection.convolution_2d import _pair
from kusari.utils import get_conv_outsize


class LocalConvolution2D(link.Link):
    """Two-dimensional local (unshared-weight) convolutional layer.

    Every output position has its own filter: ``W`` has shape
    ``(out_channels, oh, ow, in_channels, kh, kw)`` and ``b`` shape
    ``(out_channels, oh, ow)``, so the input size must be known (given or
    taken from the first input). There is no padding.

    Args:
        in_channels: Number of input channels (None: lazy).
        out_channels: Number of output channels.
        in_size: Spatial input size ``s`` or ``(h, w)`` (None: lazy).
        ksize: Filter size.
        stride: Stride.
        nobias: Leave out the bias.
        initialW: Initializer of ``W``; LeCunNormal by default.
        initial_bias: Initializer of ``b``; zero by default.

    Example:
        >>> import numpy as np
        >>> import kusari.links as L
        >>> conv = L.LocalConvolution2D(2, 3, 4, 2)
        >>> conv.W.shape
        (3, 3, 3, 2, 2, 2)
        >>> conv(np.zeros((1, 2, 4, 4), np.float32)).shape
        (1, 3, 3, 3)
    """

    def __init__(
        self,
        in_channels: int | None,
        out_channels: int,
        in_size: Any = None,
        ksize: Any = None,
        stride: Any = 1,
        nobias: bool = False,
        initialW: Any = None,
        initial_bias: Any = None,
    ) -> None:
        super().__init__()
        if ksize is None:
            raise ValueError("LocalConvolution2D: ksize is required")
        self.ksize = ksize
        self.stride = _pair(stride)
        self.nobias = nobias
        self.out_channels = out_channels
        with self.init_scope():
            self.W = variable.Parameter(initializers._get_initializer(initialW))
            if nobias:
                self.b = None
            else:
                self.b = bias_parameter(None, initial_bias)  # shape set later
            if in_channels is not None and in_size is not None:
                self._initialize_params(in_channels, _pair(in_size))

    def _initialize_params(self, in_channels: int, in_size: Any) -> None:
        kh, kw = _pair(self.ksize)
        ih, iw = _pair(in_size)
        oh = get_conv_outsize(ih, kh, self.stride[0], 0)
        ow = get_conv_outsize(iw, kw, self.stride[1], 0)
        if oh <= 0 or ow <= 0:
            raise ValueError(
                f"LocalConvolution2D: input size {(ih, iw)} is smaller than the "
                f"filter {(kh, kw)}"
            )
        self.W.initialize((self.out_channels, oh, ow, in_channels, kh, kw))
        if self.b is not None:
            self.b.initialize((self.out_channels, oh, ow))

    @property
    def printable_specs(self) -> Iterator[tuple[str, Any]]:
        yield "out_channels", self.out_channels
        yield "ksize", self.ksize
        yield "stride", self.stride
        yield "nobias", self.nobias

    def forward(self, x: Any) -> Any:
        if self.W.array is None:
            self._initialize_params(x.shape[1], tuple(x.shape[2:]))
        return local_module.local_convolution_2d(x, self.W, self.b, self.stride)
