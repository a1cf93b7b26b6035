"""The two-dimensional transposed convolution (deconvolution) link."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kusari.functions.connection import deconvolution_2d as deconv2d_module
from kusari.links.connection._conv_link_base import (
    ConvolutionLinkBase,
    pair,
    short_form,
)
from kusari.types import InitializerSpec, IntOrTuple


class Deconvolution2D(ConvolutionLinkBase):
    """Two-dimensional transposed convolution (deconvolution) layer.

    Holds a filter ``W`` of shape ``(in_channels, out_channels / groups, kh,
    kw)`` and a bias ``b`` of shape ``(out_channels,)``, and applies
    :func:`~kusari.functions.deconvolution_2d`.

    Args:
        in_channels: Number of input channels; None infers it from the first
            input. Two positional arguments mean
            ``Deconvolution2D(out_channels, ksize)``.
        out_channels: Number of output channels.
        ksize: Filter size ``k`` or ``(kh, kw)``.
        stride: Stride ``s`` or ``(sy, sx)``.
        pad: Padding ``p`` or ``(ph, pw)`` removed from the output.
        nobias: Leave out the bias.
        outsize: Output size ``(h, w)``; inferred when None.
        initialW: Initializer of ``W``; LeCunNormal by default.
        initial_bias: Initializer of ``b``; zero by default.
        dilate: Dilation of the filter.
        groups: Number of channel groups.

    Example:
        >>> import numpy as np
        >>> import kusari.links as L
        >>> deconv = L.Deconvolution2D(3, 2, 4, stride=2, pad=1)
        >>> deconv(np.zeros((1, 3, 5, 5), np.float32)).shape
        (1, 2, 10, 10)
    """

    _name = "Deconvolution2D"
    _transposed = True

    def __init__(
        self,
        in_channels: int | None,
        out_channels: Any,
        ksize: IntOrTuple = None,
        stride: IntOrTuple = 1,
        pad: IntOrTuple = 0,
        nobias: bool = False,
        outsize: Any = None,
        initialW: InitializerSpec = None,
        initial_bias: InitializerSpec = None,
        *,
        dilate: IntOrTuple = 1,
        groups: int = 1,
    ) -> None:
        super().__init__()
        in_channels, out_channels, ksize = short_form(
            self._name, in_channels, out_channels, ksize
        )
        self.ksize = ksize
        self.stride = pair(stride)
        self.pad = pair(pad)
        self.dilate = pair(dilate)
        self.outsize = (None, None) if outsize is None else outsize
        self._init_params(
            in_channels, out_channels, groups, nobias, initialW, initial_bias
        )

    def _kernel_size(self) -> tuple[int, ...]:
        return pair(self.ksize)

    def _extra_specs(self) -> Iterator[tuple[str, Any]]:
        yield "outsize", self.outsize

    @classmethod
    def from_params(
        cls,
        W: Any,
        b: Any = None,
        stride: Any = 1,
        pad: Any = 0,
        nobias: bool = False,
        outsize: Any = None,
        *,
        dilate: IntOrTuple = 1,
        groups: int = 1,
    ) -> Deconvolution2D:
        """Build a Deconvolution2D whose parameters start from the given arrays."""
        W = getattr(W, "array", W)
        in_channels, out_per_group, kh, kw = W.shape
        b = None if b is None else getattr(b, "array", b)
        return cls(
            in_channels,
            out_per_group * groups,
            (kh, kw),
            stride,
            pad,
            nobias=nobias or b is None,
            outsize=outsize,
            initialW=W,
            initial_bias=b,
            dilate=dilate,
            groups=groups,
        )

    def _apply(self, x: Any) -> Any:
        outsize = None if self.outsize == (None, None) else self.outsize
        return deconv2d_module.deconvolution_2d(
            x,
            self.W,
            self.b,
            self.stride,
            self.pad,
            outsize,
            dilate=self.dilate,
            groups=self.groups,
        )
