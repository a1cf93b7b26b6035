"""``cumsum``: cumulative sum along an axis."""

from __future__ import annotations

from typing import Any

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.functions.math._helpers import (
    check_float_unary,
    flip_axis,
    normalize_int_axis,
)
from kusari.utils import force_array
from kusari.variable import Variable


class Cumsum(FunctionNode):
    """Cumulative sum along ``axis`` of an array with ``ndim >= 1``."""

    check_type_forward = staticmethod(check_float_unary)

    def __init__(self, axis: int) -> None:
        self.axis = axis

    @property
    def label(self) -> str:
        return "cumsum"

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = inputs
        xp = backend.get_array_module(x)
        return (force_array(xp.cumsum(x, axis=self.axis), x.dtype),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        g = flip_axis(grad_outputs[0], self.axis)
        return (flip_axis(Cumsum(self.axis).apply((g,))[0], self.axis),)


def _prepare(x: Any, axis: Any, fname: str) -> tuple[Any, int, tuple[int, ...] | None]:
    """Flatten for ``axis=None`` (as NumPy does) and normalize ``axis``."""
    from kusari.functions.array.reshape import reshape

    shape = x.shape
    if axis is None:
        return reshape(x, (-1,)) if len(shape) != 1 else x, 0, None
    if len(shape) == 0:
        raise ValueError(f"{fname}: an axis was given for a 0-dim input")
    return x, normalize_int_axis(axis, len(shape), fname), shape


def cumsum(x: Any, axis: Any = None) -> Variable:
    """Cumulative sum along ``axis`` (of the flattened input if None).

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.cumsum(np.array([1., 2., 3.], np.float32)).array
        array([1., 3., 6.], dtype=float32)
    """
    x, ax, _ = _prepare(x, axis, "cumsum")
    return Cumsum(ax).apply((x,))[0]
