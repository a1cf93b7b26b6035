"""``repeat``: repeat elements of an array (``numpy.repeat``)."""

from __future__ import annotations

from typing import Any

import numpy

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.functions.array._util import scatter_add_flat
from kusari.utils import type_check
from kusari.variable import Variable


def _norm_repeats(repeats: Any) -> tuple[int, ...]:
    # bools count as ints here, as in NumPy and v7 (True repeats once);
    # ``axis`` is the one that refuses them.
    if isinstance(repeats, (int, numpy.integer)):
        reps: tuple[int, ...] = (int(repeats),)
    elif isinstance(repeats, (tuple, list)) and all(
        isinstance(r, (int, numpy.integer)) for r in repeats
    ):
        reps = tuple(int(r) for r in repeats)
    else:
        raise TypeError(
            f"repeat: repeats must be an int or a tuple of ints, got {repeats!r}"
        )
    if any(r < 0 for r in reps):
        raise ValueError(
            f"repeat: all elements in repeats must be zero or larger, got {repeats!r}"
        )
    return reps


class Repeat(FunctionNode):
    """Repeat elements along ``axis`` (the flattened array when None)."""

    def __init__(self, repeats: Any, axis: int | None = None) -> None:
        self.repeats = _norm_repeats(repeats)
        if axis is not None and (not isinstance(axis, int) or isinstance(axis, bool)):
            raise TypeError(f"repeat: axis must be None or an int, got {axis!r}")
        self.axis = axis

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        x = in_types[0]
        if self.axis is not None:
            type_check.expect(-x.ndim <= self.axis, self.axis < x.ndim)
        if len(self.repeats) > 1:
            if self.axis is None:
                type_check.expect(x.size == len(self.repeats))
            else:
                ndim = type_check.eval(x.ndim)
                type_check.expect(x.shape[self.axis % ndim] == len(self.repeats))

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = inputs
        xp = backend.get_array_module(x)
        self._in_shape = x.shape
        reps = self.repeats[0] if len(self.repeats) == 1 else self.repeats
        return (xp.repeat(x, reps, axis=self.axis),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        return RepeatGrad(self.repeats, self.axis, self._in_shape).apply(grad_outputs)


class RepeatGrad(FunctionNode):
    """Sum the gradients of each element's copies."""

    def __init__(
        self, repeats: tuple[int, ...], axis: int | None, in_shape: tuple[int, ...]
    ) -> None:
        self.repeats = repeats
        self.axis = axis
        self.in_shape = in_shape

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (gy,) = inputs
        xp = backend.get_array_module(gy)
        if self.axis is None:
            n = int(numpy.prod(self.in_shape, dtype=numpy.int64))
            seg = numpy.repeat(
                numpy.arange(n),
                self.repeats if len(self.repeats) > 1 else self.repeats[0],
            )
            gx = scatter_add_flat(xp, xp.asarray(seg), gy, n, gy.dtype)
            return (gx.reshape(self.in_shape),)
        axis = self.axis % len(self.in_shape)
        n = self.in_shape[axis]
        reps = self.repeats if len(self.repeats) > 1 else self.repeats * n
        if len(set(reps)) == 1:
            r = reps[0]
            shape = gy.shape[:axis] + (n, r) + gy.shape[axis + 1 :]
            return (gy.reshape(shape).sum(axis=axis + 1),)
        g = xp.moveaxis(gy, axis, 0)
        rest = g.shape[1:]
        inner = int(numpy.prod(rest, dtype=numpy.int64))
        seg = xp.asarray(numpy.repeat(numpy.arange(n), reps))
        index = seg[:, None] * inner + xp.arange(inner)[None, :]
        gx = scatter_add_flat(xp, index, g, n * inner, gy.dtype)
        return (xp.moveaxis(gx.reshape((n,) + rest), 0, axis),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        return Repeat(self.repeats, self.axis).apply(grad_outputs)


def repeat(x: Any, repeats: Any, axis: int | None = None) -> Variable:
    """Repeat each element of ``x`` (``numpy.repeat``).

    Args:
        x: Input variable.
        repeats: An int, or one non-negative int per element along ``axis``
            (bools count as 0 and 1).
        axis: The axis to repeat along; None repeats the flattened array.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.repeat(np.array([1, 2], np.float32), 2).array
        array([1., 1., 2., 2.], dtype=float32)
    """
    return Repeat(repeats, axis).apply((x,))[0]
