"""The two-dimensional convolution link."""

from __future__ import annotations

from typing import Any

from kusari.functions.connection import convolution_2d as conv2d_module
from kusari.links.connection._conv_link_base import (
    ConvolutionLinkBase,
    check_groups,
    pair,
    short_form,
)
from kusari.types import InitializerSpec, IntOrTuple

# The sibling links (dilated, deformable, depthwise...) import these names.
_pair = pair
_check_groups = check_groups


class Convolution2D(ConvolutionLinkBase):
    """Two-dimensional convolutional layer.

    Holds a filter ``W`` of shape ``(out_channels, in_channels / groups, kh,
    kw)`` and a bias ``b`` of shape ``(out_channels,)``, and applies
    :func:`~kusari.functions.convolution_2d`.

    Args:
        in_channels: Number of input channels; None infers it from the first
            input (``W`` is then initialized lazily). Two positional arguments
            mean ``Convolution2D(out_channels, ksize)``.
        out_channels: Number of output channels.
        ksize: Filter size ``k`` or ``(kh, kw)``.
        stride: Stride ``s`` or ``(sy, sx)``.
        pad: Zero padding ``p`` or ``(ph, pw)``.
        nobias: Leave out the bias.
        initialW: Initializer of ``W``; LeCunNormal by default.
        initial_bias: Initializer of ``b``; zero by default.
        dilate: Dilation ``d`` or ``(dy, dx)``.
        groups: Number of channel groups (grouped convolution).

    Example:
        >>> import numpy as np
        >>> import kusari.links as L
        >>> conv = L.Convolution2D(3, 5, 3, pad=1)
        >>> conv(np.zeros((2, 3, 8, 8), np.float32)).shape
        (2, 5, 8, 8)
        >>> lazy = L.Convolution2D(4, 2)
        >>> lazy(np.zeros((1, 6, 5, 5), np.float32)).shape, lazy.W.shape
        ((1, 4, 4, 4), (4, 6, 2, 2))
    """

    _name = "Convolution2D"

    def __init__(
        self,
        in_channels: int | None,
        out_channels: Any,
        ksize: IntOrTuple = None,
        stride: IntOrTuple = 1,
        pad: IntOrTuple = 0,
        nobias: bool = False,
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
        self._init_params(
            in_channels, out_channels, groups, nobias, initialW, initial_bias
        )

    def _kernel_size(self) -> tuple[int, ...]:
        return pair(self.ksize)

    @classmethod
    def from_params(
        cls,
        W: Any,
        b: Any = None,
        stride: Any = 1,
        pad: Any = 0,
        nobias: bool = False,
        *,
        dilate: IntOrTuple = 1,
        groups: int = 1,
    ) -> Convolution2D:
        """Build a Convolution2D whose parameters start from the given arrays."""
        W = getattr(W, "array", W)
        out_channels, in_per_group, kh, kw = W.shape
        if b is not None:
            b = getattr(b, "array", b)
            if b.shape != (out_channels,):
                raise ValueError(
                    f"Convolution2D.from_params: b must have shape "
                    f"({out_channels},), got {b.shape}"
                )
        return cls(
            in_per_group * groups,
            out_channels,
            (kh, kw),
            stride,
            pad,
            nobias=nobias or b is None,
            initialW=W,
            initial_bias=b,
            dilate=dilate,
            groups=groups,
        )

    def _apply(self, x: Any) -> Any:
        return conv2d_module.convolution_2d(
            x,
            self.W,
            self.b,
            self.stride,
            self.pad,
            dilate=self.dilate,
            groups=self.groups,
        )
