"""``pad``: pad an array (``numpy.pad``) with a differentiable result."""

from __future__ import annotations

from typing import Any

import numpy

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.functions.array._util import scatter_add_flat
from kusari.utils import type_check
from kusari.variable import Variable

# Modes whose every output element is a copy of one input element: their
# gradient scatters back through the same index map.
_INDEX_MODES = ("edge", "reflect", "symmetric", "wrap")


def _widths(pad_width: Any, ndim: int) -> tuple[tuple[int, int], ...]:
    rows = numpy.broadcast_to(numpy.asarray(pad_width), (ndim, 2))
    return tuple((int(a), int(b)) for a, b in rows)


class Pad(FunctionNode):
    """Pad with ``mode`` (constant, edge, reflect, symmetric or wrap)."""

    def __init__(self, pad_width: Any, mode: str, **keywords: Any) -> None:
        if mode != "constant" and mode not in _INDEX_MODES:
            raise ValueError(
                f"pad: mode {mode!r} is not supported; use one of "
                f"{('constant',) + _INDEX_MODES}"
            )
        allowed = {"constant_values"} if mode == "constant" else {"reflect_type"}
        unknown = set(keywords) - allowed
        if unknown:
            raise TypeError(
                f"pad: unexpected keyword argument(s) for mode {mode!r}: "
                f"{sorted(unknown)}"
            )
        if keywords.get("reflect_type", "even") != "even":
            raise ValueError("pad: only reflect_type='even' is supported")
        pw = numpy.asarray(pad_width)
        if pw.dtype.kind not in "iu" or (pw < 0).any():
            raise ValueError(
                f"pad: pad_width must be non-negative ints, got {pad_width!r}"
            )
        self.pad_width = pad_width
        self.mode = mode
        self.keywords = keywords

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        x = in_types[0]
        type_check.expect(x.dtype.kind == "f")
        ndim = type_check.eval(x.ndim)
        try:
            numpy.broadcast_to(numpy.asarray(self.pad_width), (ndim, 2))
        except ValueError:
            raise type_check.InvalidType(
                "pad_width can be broadcast to (in_types[0].ndim, 2)",
                f"pad_width={self.pad_width!r}, in_types[0].ndim == {ndim}",
            ) from None

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = inputs
        xp = backend.get_array_module(x)
        self._in_shape = x.shape
        self._widths = _widths(self.pad_width, x.ndim)
        if x.ndim == 0:
            # A 0-d array has no axis to pad: NumPy returns it unchanged.
            return (x.copy(),)
        if self.mode == "constant":
            return (xp.pad(x, self._widths, mode="constant", **self.keywords),)
        self._index = _index_map(xp, x.shape, self._widths, self.mode)
        return (x.ravel()[self._index],)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        (gy,) = grad_outputs
        if self.mode == "constant" or not self._in_shape:
            from kusari.functions.array.get_item import get_item

            index = tuple(
                slice(a, a + n)
                for (a, _), n in zip(self._widths, self._in_shape, strict=True)
            )
            return (get_item(gy, index),)
        return _IndexScatter(self._index, self._in_shape).apply((gy,))


def _index_map(xp: Any, shape: tuple[int, ...], widths: Any, mode: str) -> Any:
    size = int(numpy.prod(shape, dtype=numpy.int64))
    return xp.pad(xp.arange(size).reshape(shape), widths, mode=mode)


class _IndexScatter(FunctionNode):
    """``gx.ravel()[index] += gy`` (the adjoint of a gather by ``index``)."""

    def __init__(self, index: Any, in_shape: tuple[int, ...]) -> None:
        self.index = index
        self.in_shape = in_shape

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (gy,) = inputs
        xp = backend.get_array_module(gy)
        size = int(numpy.prod(self.in_shape, dtype=numpy.int64))
        return (
            scatter_add_flat(xp, self.index, gy, size, gy.dtype).reshape(self.in_shape),
        )

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        return _IndexGather(self.index, self.in_shape).apply(grad_outputs)


class _IndexGather(FunctionNode):
    """``y = x.ravel()[index]``."""

    def __init__(self, index: Any, in_shape: tuple[int, ...]) -> None:
        self.index = index
        self.in_shape = in_shape

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = inputs
        return (x.ravel()[self.index],)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        return _IndexScatter(self.index, self.in_shape).apply(grad_outputs)


def pad(x: Any, pad_width: Any, mode: str, **keywords: Any) -> Variable:
    """Pad ``x`` as ``numpy.pad`` does.

    Args:
        x: Input variable (floating point).
        pad_width: Pad widths: an int, ``(before, after)`` or one pair per
            axis (broadcast to ``(x.ndim, 2)``).
        mode: ``'constant'`` (keyword ``constant_values``), or one of the
            modes that copy input elements: ``'edge'``, ``'reflect'``,
            ``'symmetric'``, ``'wrap'``. Gradients of the copies are summed.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.pad(np.ones(2, np.float32), 1, 'constant').array
        array([0., 1., 1., 0.], dtype=float32)
    """
    return Pad(pad_width, mode, **keywords).apply((x,))[0]
