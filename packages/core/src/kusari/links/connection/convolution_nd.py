"""N-dimensional convolution links (``ConvolutionND``, ``Convolution1D``,
``Convolution3D``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kusari.functions.connection import convolution_nd as convnd_module
from kusari.links.connection._conv_link_base import (
    ConvolutionLinkBase,
    as_tuple,
    short_form,
)
from kusari.types import InitializerSpec, IntOrTuple

_as_tuple = as_tuple  # the name sibling links import


class ConvolutionND(ConvolutionLinkBase):
    """N-dimensional convolutional layer.

    Holds a filter ``W`` of shape ``(out_channels, in_channels / groups, k_1,
    ..., k_N)`` and a bias ``b`` of shape ``(out_channels,)``, and applies
    :func:`~kusari.functions.convolution_nd`.

    Args:
        ndim: Number of spatial dimensions.
        in_channels: Number of input channels; None infers it from the first
            input. ``ConvolutionND(ndim, out_channels, ksize)`` is the short
            form.
        out_channels: Number of output channels.
        ksize: Filter size (int or tuple of ``ndim`` ints).
        stride: Stride (int or tuple).
        pad: Zero padding (int or tuple).
        nobias: Leave out the bias.
        initialW: Initializer of ``W``; LeCunNormal by default.
        initial_bias: Initializer of ``b``; zero by default.
        cover_all: Extend the output so every input pixel is covered.
        dilate: Dilation (int or tuple).
        groups: Number of channel groups.

    Example:
        >>> import numpy as np
        >>> import kusari.links as L
        >>> conv = L.ConvolutionND(3, 2, 4, 3)
        >>> conv(np.zeros((1, 2, 5, 5, 5), np.float32)).shape
        (1, 4, 3, 3, 3)
    """

    _name = "ConvolutionND"

    def __init__(
        self,
        ndim: int,
        in_channels: int | None,
        out_channels: Any,
        ksize: IntOrTuple = None,
        stride: IntOrTuple = 1,
        pad: IntOrTuple = 0,
        nobias: bool = False,
        initialW: InitializerSpec = None,
        initial_bias: InitializerSpec = None,
        cover_all: bool = False,
        dilate: IntOrTuple = 1,
        groups: int = 1,
    ) -> None:
        super().__init__()
        name = self._name
        in_channels, out_channels, ksize = short_form(
            name, in_channels, out_channels, ksize
        )
        self.ndim = ndim
        self.ksize = as_tuple(ksize, ndim, name, "ksize")
        self.stride = as_tuple(stride, ndim, name, "stride")
        self.pad = as_tuple(pad, ndim, name, "pad")
        self.dilate = as_tuple(dilate, ndim, name, "dilate")
        self.cover_all = cover_all
        self._init_params(
            in_channels, out_channels, groups, nobias, initialW, initial_bias
        )

    def _kernel_size(self) -> tuple[int, ...]:
        return tuple(self.ksize)

    def _extra_specs(self) -> Iterator[tuple[str, Any]]:
        yield "cover_all", self.cover_all

    @classmethod
    def from_params(
        cls,
        W: Any,
        b: Any = None,
        stride: Any = 1,
        pad: Any = 0,
        nobias: bool = False,
        **kwargs: Any,
    ) -> ConvolutionND:
        """Build a link whose parameters start from the given arrays.

        ``kwargs`` may hold ``cover_all``, ``dilate`` and ``groups``.
        """
        W = getattr(W, "array", W)
        groups = kwargs.get("groups", 1)
        out_channels, in_per_group = W.shape[:2]
        ksize = tuple(W.shape[2:])
        b = None if b is None else getattr(b, "array", b)
        args: tuple[Any, ...] = (in_per_group * groups, out_channels, ksize)
        if cls is ConvolutionND:
            args = (len(ksize),) + args
        params: dict[str, Any] = {
            "stride": stride,
            "pad": pad,
            "nobias": nobias or b is None,
            "initialW": W,
            "initial_bias": b,
        }
        params.update(kwargs)
        return cls(*args, **params)

    def _apply(self, x: Any) -> Any:
        return convnd_module.convolution_nd(
            x,
            self.W,
            self.b,
            self.stride,
            self.pad,
            cover_all=self.cover_all,
            dilate=self.dilate,
            groups=self.groups,
        )


class Convolution1D(ConvolutionND):
    """One-dimensional convolutional layer (:class:`ConvolutionND` with
    ``ndim=1``).

    Example:
        >>> import numpy as np
        >>> import kusari.links as L
        >>> L.Convolution1D(2, 3, 2)(np.zeros((1, 2, 5), np.float32)).shape
        (1, 3, 4)
    """

    _name = "Convolution1D"

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
        cover_all: bool = False,
        dilate: IntOrTuple = 1,
        groups: int = 1,
    ) -> None:
        super().__init__(
            1,
            in_channels,
            out_channels,
            ksize,
            stride,
            pad,
            nobias,
            initialW,
            initial_bias,
            cover_all,
            dilate,
            groups,
        )


class Convolution3D(ConvolutionND):
    """Three-dimensional convolutional layer (:class:`ConvolutionND` with
    ``ndim=3``).

    Example:
        >>> import numpy as np
        >>> import kusari.links as L
        >>> L.Convolution3D(1, 2, 2)(np.zeros((1, 1, 3, 3, 3), np.float32)).shape
        (1, 2, 2, 2, 2)
    """

    _name = "Convolution3D"

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
        cover_all: bool = False,
        dilate: IntOrTuple = 1,
        groups: int = 1,
    ) -> None:
        super().__init__(
            3,
            in_channels,
            out_channels,
            ksize,
            stride,
            pad,
            nobias,
            initialW,
            initial_bias,
            cover_all,
            dilate,
            groups,
        )
