"""Deformable convolution links (``DeformableConvolution2D``)."""

from __future__ import annotations

from typing import Any

from kusari import initializers, link, variable
from kusari.functions.connection import deformable_convolution_2d_sampler as dcs
from kusari.links._params import bias_parameter
from kusari.links.connection.convolution_2d import Convolution2D, _pair


class DeformableConvolution2DSampler(link.Link):
    """Convolution sampling its input at offset positions.

    Holds ``W`` of shape ``(out_channels, in_channels, kh, kw)`` (zero by
    default, as in Chainer) and ``b`` of shape ``(out_channels,)``; applies
    :func:`~kusari.functions.deformable_convolution_2d_sampler`.
    """

    def __init__(
        self,
        in_channels: int | None,
        out_channels: int,
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
        self.out_channels = out_channels
        self.initialW = initialW
        if initialW is None:
            initialW = initializers.Zero()
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
        self.W.initialize((self.out_channels, in_channels, kh, kw))
        if self.b is not None:
            self.b.initialize(self.out_channels)

    def forward(self, x: Any, offset: Any) -> Any:
        if self.W.array is None:
            self._initialize_params(x.shape[1])
        return dcs.deformable_convolution_2d_sampler(
            x, offset, self.W, self.b, self.stride, self.pad
        )


class DeformableConvolution2D(link.Chain):
    """Deformable convolution (Dai et al., 2017).

    A :class:`Convolution2D` child ``offset_conv`` predicts ``2 * kh * kw``
    offset channels; a :class:`DeformableConvolution2DSampler` child
    ``deform_conv`` convolves the input sampled at the offset positions.

    Args:
        in_channels: Number of input channels (None: lazy).
        out_channels: Number of output channels.
        ksize: Filter size.
        stride: Stride.
        pad: Padding.
        offset_nobias: No bias in the offset convolution.
        offset_initialW: Initializer of the offset convolution's ``W``.
        offset_initial_bias: Initializer of its bias.
        deform_nobias: No bias in the deformable convolution.
        deform_initialW: Initializer of the deformable convolution's ``W``
            (zero by default).
        deform_initial_bias: Initializer of its bias.

    Example:
        >>> import numpy as np
        >>> import kusari.links as L
        >>> conv = L.DeformableConvolution2D(2, 3, 3, pad=1)
        >>> conv.offset_conv.W.shape, conv.deform_conv.W.shape
        ((18, 2, 3, 3), (3, 2, 3, 3))
        >>> conv(np.zeros((1, 2, 4, 4), np.float32)).shape
        (1, 3, 4, 4)
    """

    def __init__(
        self,
        in_channels: int | None,
        out_channels: int,
        ksize: Any,
        stride: Any = 1,
        pad: Any = 0,
        offset_nobias: bool = False,
        offset_initialW: Any = None,
        offset_initial_bias: Any = None,
        deform_nobias: bool = False,
        deform_initialW: Any = None,
        deform_initial_bias: Any = None,
    ) -> None:
        super().__init__()
        kh, kw = _pair(ksize)
        with self.init_scope():
            self.offset_conv = Convolution2D(
                in_channels,
                2 * kh * kw,
                ksize,
                stride,
                pad,
                offset_nobias,
                offset_initialW,
                offset_initial_bias,
            )
            self.deform_conv = DeformableConvolution2DSampler(
                in_channels,
                out_channels,
                ksize,
                stride,
                pad,
                deform_nobias,
                deform_initialW,
                deform_initial_bias,
            )

    def forward(self, x: Any) -> Any:
        offset = self.offset_conv(x)
        return self.deform_conv(x, offset)
