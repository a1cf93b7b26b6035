"""Sums: ``sum`` over axes and ``sum_to`` a shape (broadcasting's adjoint)."""

from __future__ import annotations

from typing import Any

import numpy

from kusari import utils
from kusari.function_node import FunctionNode
from kusari.utils import force_array, threads, type_check
from kusari.variable import Variable


def _normalize_axis(axis: Any, ndim: int, fname: str) -> tuple[int, ...] | None:
    if axis is None:
        return None
    if isinstance(axis, int):
        axis = (axis,)
    elif not (isinstance(axis, tuple) and all(isinstance(a, int) for a in axis)):
        raise TypeError(
            f"{fname}: axis must be None, an int or a tuple of ints, got {axis!r}"
        )
    out = []
    for a in axis:
        if not -ndim <= a < ndim:
            raise ValueError(
                f"{fname}: axis {a} is out of bounds for an array of ndim {ndim}"
            )
        out.append(a % ndim)
    if len(set(out)) != len(out):
        raise ValueError(f"{fname}: duplicate value in axis {axis!r}")
    return tuple(sorted(out))


class Sum(FunctionNode):
    """Sum over axes (all by default)."""

    keepdims = False

    def __init__(self, axis: Any = None, keepdims: bool = False) -> None:
        self.axis = axis
        self.keepdims = keepdims

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        type_check.expect(in_types[0].dtype.kind == "f")

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = inputs
        self._in_shape = x.shape
        self._axis = axis = _normalize_axis(self.axis, x.ndim, "sum")
        if x.size < threads.MIN_ELEMENTS or type(x) is not numpy.ndarray:
            return (force_array(x.sum(axis=axis, keepdims=self.keepdims)),)
        # Large: over the intra-op threads (a sum over every axis adds
        # per-thread partial sums, so its last bits may differ from NumPy's).
        return (force_array(threads.reduce_sum(x, axis, self.keepdims)),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        from kusari.functions.array.broadcast import broadcast_to
        from kusari.functions.array.reshape import reshape

        (gy,) = grad_outputs
        shape = self._in_shape
        if not self.keepdims and self._axis is not None and len(shape) > 0:
            kept = list(gy.shape)
            for a in self._axis:
                kept.insert(a, 1)
            gy = reshape(gy, tuple(kept))
        elif not self.keepdims and self._axis is None:
            gy = reshape(gy, (1,) * len(shape))
        return (broadcast_to(gy, shape),)


def sum(x: Any, axis: Any = None, keepdims: bool = False) -> Variable:
    """Sum of elements over the given axes.

    Args:
        x: Input variable.
        axis: None (all axes), an int, or a tuple of ints.
        keepdims: Keep the summed axes with length one.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.sum(np.arange(6, dtype=np.float32).reshape(2, 3), axis=1).array
        array([ 3., 12.], dtype=float32)
    """
    return Sum(axis, keepdims).apply((x,))[0]


class SumTo(FunctionNode):
    """Sum an array down to ``shape`` (undoing a broadcast)."""

    def __init__(self, shape: tuple[int, ...]) -> None:
        self._shape = tuple(shape)

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        shape = self._shape
        ndim = type_check.eval(in_types[0].ndim)
        xshape = type_check.eval(in_types[0].shape)
        ok = ndim >= len(shape) and all(
            s == 1 or s == xs for s, xs in zip(shape, xshape[ndim - len(shape) :])
        )
        if not ok:
            raise type_check.InvalidType(
                f"in_types[0].shape can be summed to {shape}", f"{xshape}"
            )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = inputs
        self._in_shape = x.shape
        return (force_array(utils.sum_to(x, self._shape)),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        from kusari.functions.array.broadcast import broadcast_to

        return (broadcast_to(grad_outputs[0], self._in_shape),)


def sum_to(x: Any, shape: tuple[int, ...]) -> Variable:
    """Sum elements so that the result has ``shape``.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.sum_to(np.ones((2, 3), np.float32), (1, 3)).array
        array([[2., 2., 2.]], dtype=float32)
    """
    if isinstance(x, Variable) and x.shape == tuple(shape):
        return x
    return SumTo(shape).apply((x,))[0]
