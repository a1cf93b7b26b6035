"""``as_strided``: a view of an array's elements with any shape and strides."""

from __future__ import annotations

from typing import Any

import numpy

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.functions.array._util import scatter_add_flat
from kusari.utils import type_check
from kusari.variable import Variable


def _extent(
    shape: tuple[int, ...], strides: tuple[int, ...], offset: int
) -> tuple[int, int]:
    """The smallest and largest element index the view touches."""
    lo = hi = offset
    if 0 in shape:
        return offset, offset
    for s, st in zip(shape, strides, strict=False):
        if st < 0:
            lo += (s - 1) * st
        else:
            hi += (s - 1) * st
    return lo, hi


def _strided(
    buf: Any, shape: tuple[int, ...], strides: tuple[int, ...], offset: int
) -> Any:
    xp = backend.get_array_module(buf)
    base = buf[offset:]
    item = buf.itemsize
    return xp.lib.stride_tricks.as_strided(
        base, shape, tuple(s * item for s in strides)
    )


def _stride_array(
    array: Any, shape: Any, strides: Any, storage_offset: int
) -> numpy.ndarray:
    """A view of the memory under ``array`` (Chainer's private helper).

    Unlike :func:`as_strided`, which indexes ``x``'s elements in C order,
    this indexes the buffer of the array that owns ``array``'s memory (its
    root ``base``): ``strides`` and ``storage_offset`` count elements from
    the start of that buffer, whatever view ``array`` itself is.

    Raises:
        TypeError: ``array`` is not a NumPy array.
        ValueError: The view would reach outside the buffer.
    """
    if not isinstance(array, numpy.ndarray):
        raise TypeError(
            f"_stride_array: expected a numpy.ndarray, got {type(array).__name__}"
        )
    shape = tuple(int(s) for s in shape)
    strides = tuple(int(s) for s in strides)
    base = array
    while isinstance(base.base, numpy.ndarray):
        base = base.base
    lo, hi = _extent(shape, strides, int(storage_offset))
    if lo < 0:
        raise ValueError("_stride_array: out of buffer: too small index was specified")
    if (hi + 1) * base.itemsize > base.nbytes:
        raise ValueError("_stride_array: out of buffer: too large index was specified")
    item = base.itemsize
    return numpy.ndarray(
        shape,
        base.dtype,
        base.data if base.flags.c_contiguous else base.T.data,
        int(storage_offset) * item,
        tuple(st * item for st in strides),
    )


class AsStrided(FunctionNode):
    """View the input's elements (in C order) with element strides."""

    def __init__(self, shape: Any, strides: Any, storage_offset: int | None) -> None:
        self.shape = tuple(int(s) for s in shape)
        self.strides = tuple(int(s) for s in strides)
        if len(self.shape) != len(self.strides):
            raise ValueError(
                f"as_strided: shape {self.shape} and strides "
                f"{self.strides} have different lengths"
            )
        if any(s < 0 for s in self.shape):
            raise ValueError(f"as_strided: negative dimension in shape {self.shape}")
        self.storage_offset = 0 if storage_offset is None else int(storage_offset)

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        size = type_check.eval(in_types[0].size)
        lo, hi = _extent(self.shape, self.strides, self.storage_offset)
        if lo < 0:
            raise ValueError(
                "as_strided: out of buffer: too small index was specified "
                f"(lowest element {lo})"
            )
        if 0 not in self.shape and hi >= size:
            raise ValueError(
                "as_strided: out of buffer: too large index was specified "
                f"(highest element {hi}, input size {size})"
            )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = inputs
        self._in_shape = x.shape
        xp = backend.get_array_module(x)
        buf = xp.ascontiguousarray(x).reshape(-1)  # a view when x is contiguous
        lo, _ = _extent(self.shape, self.strides, self.storage_offset)
        y = _strided(buf[lo:], self.shape, self.strides, self.storage_offset - lo)
        return (y,)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        return AsStridedGrad(self).apply(grad_outputs)


class AsStridedGrad(FunctionNode):
    """Sum gradients of the view back to the elements they came from."""

    def __init__(self, fwd: AsStrided) -> None:
        self.fwd = fwd

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (gy,) = inputs
        if gy.dtype.kind != "f":
            # As in Chainer: an integer view has no gradient to sum.
            raise TypeError(
                f"as_strided: backward needs a float gradient, got dtype {gy.dtype}"
            )
        xp = backend.get_array_module(gy)
        f = self.fwd
        size = int(numpy.prod(f._in_shape, dtype=numpy.int64))
        lo, _ = _extent(f.shape, f.strides, f.storage_offset)
        index = _strided(xp.arange(lo, size), f.shape, f.strides, f.storage_offset - lo)
        return (scatter_add_flat(xp, index, gy, size, gy.dtype).reshape(f._in_shape),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        f = self.fwd
        return (as_strided(grad_outputs[0], f.shape, f.strides, f.storage_offset),)


def as_strided(
    x: Any, shape: Any, strides: Any, storage_offset: int | None = None
) -> Variable:
    """A strided view of ``x``'s elements (``strides`` in elements, not bytes).

    The buffer is ``x``'s elements in C order (a view when ``x`` is
    contiguous); ``storage_offset`` is the element the view starts at (default
    0). Overlapping views get the summed gradient.

    Args:
        x: Input variable.
        shape: Shape of the view.
        strides: Strides of the view, in elements (may be zero or negative).
        storage_offset: Index of the view's first element in the buffer.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.as_strided(np.arange(4, dtype=np.float32), (3, 2), (1, 1), 0).array
        array([[0., 1.],
               [1., 2.],
               [2., 3.]], dtype=float32)
    """
    return AsStrided(shape, strides, storage_offset).apply((x,))[0]
