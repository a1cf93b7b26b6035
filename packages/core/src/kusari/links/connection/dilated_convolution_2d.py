"""The dilated convolution link (``DilatedConvolution2D``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kusari import initializers, link, variable
from kusari.functions.connection import dilated_convolution_2d as dilated_module
from kusari.links._params import bias_parameter
from kusari.links.connection.convolution_2d import _pair


class DilatedConvolution2D(link.Link):
    """Two-dimensional dilated convolutional layer.

    ``W`` has shape ``(out_channels, in_channels, kh, kw)`` and ``b`` shape
    ``(out_channels,)``; applies
    :func:`~kusari.functions.dilated_convolution_2d`.

    Args:
        in_channels: Number of input channels; None for lazy initialization.
            ``DilatedConvolution2D(out_channels, ksize)`` is the short form.
        out_channels: Number of output channels.
        ksize: Filter size.
        stride: Stride.
        pad: Zero padding.
        dilate: Dilation factor.
        nobias: Leave out the bias.
        initialW: Initializer of ``W``; LeCunNormal by default.
        initial_bias: Initializer of ``b``; zero by default.

    Example:
        >>> import numpy as np
        >>> import kusari.links as L
        >>> conv = L.DilatedConvolution2D(2, 3, 3, pad=2, dilate=2)
        >>> conv(np.zeros((1, 2, 6, 6), np.float32)).shape
        (1, 3, 6, 6)
    """

    def __init__(
        self,
        in_channels: int | None,
        out_channels: Any,
        ksize: Any = None,
        stride: Any = 1,
        pad: Any = 0,
        dilate: Any = 1,
        nobias: bool = False,
        initialW: Any = None,
        initial_bias: Any = None,
    ) -> None:
        super().__init__()
        if ksize is None:
            out_channels, ksize, in_channels = in_channels, out_channels, None
        if ksize is None or out_channels is None:
            raise ValueError(
                "DilatedConvolution2D: out_channels and ksize are required"
            )
        self.ksize = ksize
        self.stride = _pair(stride)
        self.pad = _pair(pad)
        self.dilate = _pair(dilate)
        self.out_channels = out_channels
        with self.init_scope():
            self.W = variable.Parameter(initializers._get_initializer(initialW))
            if in_channels is not None:
                self._initialize_params(in_channels)
            if nobias:
                self.b = None
            else:
                self.b = bias_parameter(out_channels, initial_bias)

    def _initialize_params(self, in_channels: int) -> None:
        kh, kw = _pair(self.ksize)
        self.W.initialize((self.out_channels, in_channels, kh, kw))

    @property
    def printable_specs(self) -> Iterator[tuple[str, Any]]:
        in_channels = None if self.W.array is None else self.W.shape[1]
        yield "in_channels", in_channels
        yield "out_channels", self.out_channels
        yield "ksize", self.ksize
        yield "stride", self.stride
        yield "pad", self.pad
        yield "dilate", self.dilate
        yield "nobias", self.b is None

    def forward(self, x: Any) -> Any:
        if self.W.array is None:
            self._initialize_params(x.shape[1])
        return dilated_module.dilated_convolution_2d(
            x, self.W, self.b, self.stride, self.pad, self.dilate
        )
