"""N-dimensional transposed convolution links (``DeconvolutionND``,
``Deconvolution1D``, ``Deconvolution3D``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kusari.functions.connection import deconvolution_nd as deconvnd_module
from kusari.links.connection._conv_link_base import (
    ConvolutionLinkBase,
    as_tuple,
    short_form,
)
from kusari.types import InitializerSpec, IntOrTuple


class DeconvolutionND(ConvolutionLinkBase):
    """N-dimensional transposed convolution (deconvolution) layer.

    Holds a filter ``W`` of shape ``(in_channels, out_channels / groups, k_1,
    ..., k_N)`` and a bias ``b`` of shape ``(out_channels,)``, and applies
    :func:`~kusari.functions.deconvolution_nd`.

    Args:
        ndim: Number of spatial dimensions.
        in_channels: Number of input channels; None infers it from the first
            input. ``DeconvolutionND(ndim, out_channels, ksize)`` is the short
            form.
        out_channels: Number of output channels.
        ksize: Filter size (int or tuple).
        stride: Stride (int or tuple).
        pad: Padding removed from the output (int or tuple).
        nobias: Leave out the bias.
        outsize: Output spatial size; inferred when None.
        initialW: Initializer of ``W``; LeCunNormal by default.
        initial_bias: Initializer of ``b``; zero by default.
        dilate: Dilation (int or tuple).
        groups: Number of channel groups.

    Example:
        >>> import numpy as np
        >>> import kusari.links as L
        >>> L.DeconvolutionND(1, 2, 3, 2)(np.zeros((1, 2, 4), np.float32)).shape
        (1, 3, 5)
    """

    _name = "DeconvolutionND"
    _transposed = True

    def __init__(
        self,
        ndim: int,
        in_channels: int | None,
        out_channels: Any,
        ksize: IntOrTuple = None,
        stride: IntOrTuple = 1,
        pad: IntOrTuple = 0,
        nobias: bool = False,
        outsize: Any = None,
        initialW: InitializerSpec = None,
        initial_bias: InitializerSpec = None,
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
        self.outsize = outsize
        self._init_params(
            in_channels, out_channels, groups, nobias, initialW, initial_bias
        )

    def _kernel_size(self) -> tuple[int, ...]:
        return tuple(self.ksize)

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
        **kwargs: Any,
    ) -> DeconvolutionND:
        """Build a link whose parameters start from the given arrays.

        ``kwargs`` may hold ``outsize``, ``dilate`` and ``groups``.
        """
        W = getattr(W, "array", W)
        groups = kwargs.get("groups", 1)
        in_channels, out_per_group = W.shape[:2]
        ksize = tuple(W.shape[2:])
        b = None if b is None else getattr(b, "array", b)
        args: tuple[Any, ...] = (in_channels, out_per_group * groups, ksize)
        if cls is DeconvolutionND:
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
        return deconvnd_module.deconvolution_nd(
            x,
            self.W,
            self.b,
            self.stride,
            self.pad,
            outsize=self.outsize,
            dilate=self.dilate,
            groups=self.groups,
        )


class Deconvolution1D(DeconvolutionND):
    """One-dimensional deconvolution layer (:class:`DeconvolutionND` with
    ``ndim=1``).

    Example:
        >>> import numpy as np
        >>> import kusari.links as L
        >>> L.Deconvolution1D(2, 3, 2)(np.zeros((1, 2, 4), np.float32)).shape
        (1, 3, 5)
    """

    _name = "Deconvolution1D"

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
            outsize,
            initialW,
            initial_bias,
            dilate,
            groups,
        )


class Deconvolution3D(DeconvolutionND):
    """Three-dimensional deconvolution layer (:class:`DeconvolutionND` with
    ``ndim=3``).

    Example:
        >>> import numpy as np
        >>> import kusari.links as L
        >>> y = L.Deconvolution3D(1, 2, 2)(np.zeros((1, 1, 2, 2, 2), np.float32))
        >>> y.shape
        (1, 2, 3, 3, 3)
    """

    _name = "Deconvolution3D"

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
            outsize,
            initialW,
            initial_bias,
            dilate,
            groups,
        )
