"""``tile``: repeat a whole array (``numpy.tile``)."""

from __future__ import annotations

from typing import Any

import numpy

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.utils import type_check
from kusari.variable import Variable


def _norm_reps(reps: Any) -> tuple[int, ...]:
    if isinstance(reps, (int, numpy.integer)) and not isinstance(reps, bool):
        out: tuple[int, ...] = (int(reps),)
    elif isinstance(reps, (tuple, list)) and all(
        isinstance(r, (int, numpy.integer)) and not isinstance(r, bool) for r in reps
    ):
        out = tuple(int(r) for r in reps)
    else:
        raise TypeError(f"tile: reps must be an int or a tuple of ints, got {reps!r}")
    if any(r < 0 for r in out):
        raise ValueError(
            f"tile: all elements in reps must be zero or larger, got {reps!r}"
        )
    return out


class Tile(FunctionNode):
    """Tile the input ``reps`` times."""

    def __init__(self, reps: Any) -> None:
        self.reps = _norm_reps(reps)

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = inputs
        xp = backend.get_array_module(x)
        self._in_shape = x.shape
        return (xp.tile(x, self.reps),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        from kusari.functions.array.reshape import reshape
        from kusari.functions.math.sum import sum as _sum

        (gy,) = grad_outputs
        n = max(len(self.reps), len(self._in_shape))
        reps = (1,) * (n - len(self.reps)) + self.reps
        shape = (1,) * (n - len(self._in_shape)) + self._in_shape
        split: list[int] = []
        for r, s in zip(reps, shape, strict=False):
            split += [r, s]
        g = reshape(gy, tuple(split))
        g = _sum(g, axis=tuple(range(0, 2 * n, 2)))
        return (reshape(g, self._in_shape),)


def tile(x: Any, reps: Any) -> Variable:
    """Construct an array by repeating ``x`` ``reps`` times (``numpy.tile``).

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.tile(np.array([1, 2], np.float32), 2).array
        array([1., 2., 1., 2.], dtype=float32)
    """
    return Tile(reps).apply((x,))[0]
