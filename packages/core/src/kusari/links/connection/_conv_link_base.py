"""What the convolution and deconvolution links share.

Convolution2D, ConvolutionND (1-d, 3-d) and their transposed counterparts hold
the same parameters, a filter ``W`` and a bias ``b``, accept the same short
form ``Link(out_channels, ksize)`` and may learn their input channels from
the first input. They differ in how sizes are spelled (pairs or N-tuples),
in the layout of ``W`` (transposed links swap its first two axes) and in the
function they apply.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kusari import initializers, link
from kusari.parameter import Parameter


def pair(value: Any) -> tuple[int, int]:
    """``value`` as a pair: ``3`` -> ``(3, 3)``, ``(2, 3)`` -> ``(2, 3)``."""
    if hasattr(value, "__getitem__"):
        return value[0], value[1]
    return value, value


def as_tuple(value: Any, ndim: int, name: str, argname: str) -> tuple[Any, ...]:
    """``value`` as an ``ndim``-tuple (an int is repeated).

    Raises:
        ValueError: A sequence of the wrong length.
    """
    if hasattr(value, "__getitem__"):
        value = tuple(value)
        if len(value) != ndim:
            raise ValueError(
                f"{name}: {argname} must have {ndim} elements, got {value!r}"
            )
        return value
    return (value,) * ndim


def check_groups(name: str, in_channels: int, out_channels: int, groups: int) -> None:
    """Both channel counts must be divisible by a positive ``groups``."""
    if groups < 1:
        raise ValueError(f"{name}: groups must be positive, got {groups}")
    for side, channels in (("output", out_channels), ("input", in_channels)):
        if channels % groups != 0:
            raise ValueError(
                f"{name}: the number of {side} channels ({channels}) must be "
                f"divisible by the number of groups ({groups})"
            )


class ConvolutionLinkBase(link.Link):
    """Base of the (de)convolution links: parameters, lazy shapes, specs.

    Subclasses set ``_name`` (used in messages), ``_transposed`` (True when
    ``W`` is ``(in_channels, out_channels / groups, k...)``), spell their
    sizes in ``__init__`` before calling :meth:`_init_params`, and implement
    :meth:`_kernel_size`, :meth:`_apply` and, for extra repr fields,
    :meth:`_extra_specs`.
    """

    _name = "ConvolutionLinkBase"
    _transposed = False
    in_channels: int | None
    out_channels: int
    groups: int
    stride: Any
    pad: Any
    dilate: Any
    ksize: Any

    def _init_params(
        self,
        in_channels: int | None,
        out_channels: int,
        groups: int,
        nobias: bool,
        initialW: Any,
        initial_bias: Any,
    ) -> None:
        """Record the channels and create ``W`` (lazily if needed) and ``b``."""
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.groups = int(groups)
        if self.groups < 1:
            raise ValueError(f"{self._name}: groups must be positive, got {groups}")
        with self.init_scope():
            self.W = Parameter(initializers._get_initializer(initialW))
            if in_channels is not None:
                self._initialize_params(in_channels)
            self.b = None if nobias else self._bias(out_channels, initial_bias)

    def _bias(self, out_channels: int, initial_bias: Any) -> Parameter:
        if initial_bias is None:
            initial_bias = 0
        shape = getattr(initial_bias, "shape", None)
        if shape is not None and tuple(shape) not in ((), (out_channels,)):
            raise ValueError(
                f"{self._name}: initial_bias must have shape ({out_channels},), "
                f"got {tuple(shape)}"
            )
        return Parameter(initializers._get_initializer(initial_bias), out_channels)

    def _initialize_params(self, in_channels: int) -> None:
        check_groups(self._name, in_channels, self.out_channels, self.groups)
        self.in_channels = in_channels
        if self._transposed:
            lead = (in_channels, self.out_channels // self.groups)
        else:
            lead = (self.out_channels, in_channels // self.groups)
        self.W.initialize(lead + tuple(self._kernel_size()))

    def _kernel_size(self) -> tuple[int, ...]:
        raise NotImplementedError(f"{self._name} does not define _kernel_size")

    def _apply(self, x: Any) -> Any:
        raise NotImplementedError(f"{self._name} does not define _apply")

    def _extra_specs(self) -> Iterator[tuple[str, Any]]:
        return iter(())

    @property
    def printable_specs(self) -> Iterator[tuple[str, Any]]:
        yield "in_channels", self.in_channels
        yield "out_channels", self.out_channels
        yield "ksize", self.ksize
        yield "stride", self.stride
        yield "pad", self.pad
        yield "nobias", self.b is None
        yield from self._extra_specs()
        yield "dilate", self.dilate
        yield "groups", self.groups

    def forward(self, x: Any) -> Any:
        """Apply the (de)convolution; the first call may fix ``in_channels``."""
        if self.W.array is None:
            self._initialize_params(x.shape[1])
        return self._apply(x)


def short_form(
    name: str, in_channels: Any, out_channels: Any, ksize: Any
) -> tuple[Any, Any, Any]:
    """Resolve ``Link(out_channels, ksize)`` into ``(in, out, ksize)``."""
    if ksize is None:
        out_channels, ksize, in_channels = in_channels, out_channels, None
    if ksize is None or out_channels is None:
        raise ValueError(f"{name}: out_channels and ksize are required")
    return in_channels, out_channels, ksize
