"""The two-dimensional convolution link."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kusari import initializers, link, variable
from kusari.functions.connection import convolution_2d as conv2d_module
from kusari.links._params import bias_parameter


def _pair(value: Any) -> tuple[int, int]:
    if hasattr(value, "__getitem__"):
        return value[0], value[1]
    return value, value


def _check_groups(name: str, in_channels: int, out_channels: int, groups: int) -> None:
    if groups < 1:
        raise ValueError(f"{name}: groups must be positive, got {groups}")
    if out_channels % groups != 0:
        raise ValueError(
            f"{name}: the number of output channels ({out_channels}) must be "
            f"divisible by the number of groups ({groups})"
        )
    if in_channels % groups != 0:
        raise ValueError(
            f"{name}: the number of input channels ({in_channels}) must be "
            f"divisible by the number of groups ({groups})"
        )


class Convolution2D(link.Link):
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

    def __init__(
        self,
        in_channels: int | None,
        out_channels: Any,
        ksize: Any = None,
        stride: Any = 1,
        pad: Any = 0,
        nobias: bool = False,
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
            raise ValueError("Convolution2D: out_channels and ksize are required")
        self.ksize = ksize
        self.stride = _pair(stride)
        self.pad = _pair(pad)
        self.dilate = _pair(dilate)
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.groups = int(groups)
        if self.groups < 1:
            raise ValueError(f"Convolution2D: groups must be positive, got {groups}")
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
        _check_groups("Convolution2D", in_channels, self.out_channels, self.groups)
        self.in_channels = in_channels
        self.W.initialize((self.out_channels, in_channels // self.groups, kh, kw))

    @property
    def printable_specs(self) -> Iterator[tuple[str, Any]]:
        yield "in_channels", self.in_channels
        yield "out_channels", self.out_channels
        yield "ksize", self.ksize
        yield "stride", self.stride
        yield "pad", self.pad
        yield "nobias", self.b is None
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
        *,
        dilate: Any = 1,
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

    def forward(self, x: Any) -> Any:
        if self.W.array is None:
            self._initialize_params(x.shape[1])
        return conv2d_module.convolution_2d(
            x,
            self.W,
            self.b,
            self.stride,
            self.pad,
            dilate=self.dilate,
            groups=self.groups,
        )
