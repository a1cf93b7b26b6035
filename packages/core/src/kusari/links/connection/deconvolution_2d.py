"""The two-dimensional transposed convolution (deconvolution) link."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kusari import initializers, link, variable
from kusari.functions.connection import deconvolution_2d as deconv2d_module
from kusari.links.connection.convolution_2d import _check_groups, _pair


class Deconvolution2D(link.Link):
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

    def __init__(
        self,
        in_channels: int | None,
        out_channels: Any,
        ksize: Any = None,
        stride: Any = 1,
        pad: Any = 0,
        nobias: bool = False,
        outsize: Any = None,
        initialW: Any = None,
        initial_bias: Any = None,
        *,
        dilate: Any = 1,
        groups: int = 1,
    ) -> None:
        super().__init__()
        if ksize is None:
            out_channels, ksize, in_channels = in_channels, out_channels, None
        if ksize is None or out_channels is None:
            raise ValueError("Deconvolution2D: out_channels and ksize are required")
        self.ksize = ksize
        self.stride = _pair(stride)
        self.pad = _pair(pad)
        self.dilate = _pair(dilate)
        self.outsize = (None, None) if outsize is None else outsize
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.groups = int(groups)
        if self.groups < 1:
            raise ValueError(f"Deconvolution2D: groups must be positive, got {groups}")
        with self.init_scope():
            self.W = variable.Parameter(initializers._get_initializer(initialW))
            if in_channels is not None:
                self._initialize_params(in_channels)
            if nobias:
                self.b = None
            else:
                if initial_bias is None:
                    initial_bias = 0
                shape = getattr(initial_bias, "shape", None)
                if shape is not None and tuple(shape) not in ((), (out_channels,)):
                    raise ValueError(
                        f"Deconvolution2D: initial_bias must have shape "
                        f"({out_channels},), got {tuple(shape)}"
                    )
                self.b = variable.Parameter(
                    initializers._get_initializer(initial_bias), out_channels
                )

    def _initialize_params(self, in_channels: int) -> None:
        kh, kw = _pair(self.ksize)
        _check_groups("Deconvolution2D", in_channels, self.out_channels, self.groups)
        self.in_channels = in_channels
        self.W.initialize((in_channels, self.out_channels // self.groups, kh, kw))

    @property
    def printable_specs(self) -> Iterator[tuple[str, Any]]:
        yield "in_channels", self.in_channels
        yield "out_channels", self.out_channels
        yield "ksize", self.ksize
        yield "stride", self.stride
        yield "pad", self.pad
        yield "nobias", self.b is None
        yield "outsize", self.outsize
        yield "dilate", self.dilate
        yield "groups", self.groups

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
        dilate: Any = 1,
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

    def forward(self, x: Any) -> Any:
        if self.W.array is None:
            self._initialize_params(x.shape[1])
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
