"""Maxout: the maximum over groups of ``pool_size`` consecutive units."""

from __future__ import annotations

from typing import Any

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.functions.array.reshape import reshape
from kusari.utils import force_array, type_check
from kusari.variable import Variable


class _MaxOverAxis(FunctionNode):
    """Maximum along one axis; the gradient goes to the (first) maximal entry."""

    def __init__(self, axis: int) -> None:
        self.axis = axis

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = inputs
        xp = backend.get_array_module(x)
        idx = xp.expand_dims(x.argmax(axis=self.axis), self.axis)
        shape = [1] * x.ndim
        shape[self.axis] = x.shape[self.axis]
        self.mask = xp.arange(x.shape[self.axis]).reshape(shape) == idx
        return (force_array(xp.take_along_axis(x, idx, self.axis).squeeze(self.axis)),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        return _Scatter(self.mask, self.axis).apply(grad_outputs)


class _Scatter(FunctionNode):
    """Puts ``gy`` where ``mask`` is True (one per line along ``axis``), else zero."""

    def __init__(self, mask: Any, axis: int) -> None:
        self.mask = mask
        self.axis = axis

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (gy,) = inputs
        xp = backend.get_array_module(gy)
        return (
            force_array(
                xp.where(self.mask, xp.expand_dims(gy, self.axis), gy.dtype.type(0))
            ),
        )

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        return _Gather(self.mask, self.axis).apply(grad_outputs)


class _Gather(FunctionNode):
    """Picks the entries where ``mask`` is True along ``axis`` (the adjoint)."""

    def __init__(self, mask: Any, axis: int) -> None:
        self.mask = mask
        self.axis = axis

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (g,) = inputs
        xp = backend.get_array_module(g)
        return (
            force_array(xp.where(self.mask, g, g.dtype.type(0)).sum(axis=self.axis)),
        )

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        return _Scatter(self.mask, self.axis).apply(grad_outputs)


def maxout(x: Any, pool_size: int, axis: int = 1) -> Variable:
    """Maxout: the maximum over each group of ``pool_size`` units along ``axis``.

    Args:
        x: Input variable of a float dtype.
        pool_size: Number of units per group; must divide ``x.shape[axis]``.
        axis: The axis to pool over.

    Returns:
        ~kusari.Variable: ``x.shape[axis]`` becomes ``x.shape[axis] // pool_size``.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.maxout(np.array([[1., 3., 2., 0.]], np.float32), 2).array
        array([[3., 2.]], dtype=float32)
    """
    if not isinstance(pool_size, int) or isinstance(pool_size, bool) or pool_size <= 0:
        raise ValueError(
            f"maxout: pool_size must be a positive integer, got {pool_size!r}"
        )
    x_shape = x.shape
    ndim = len(x_shape)
    if not isinstance(axis, int) or not -ndim <= axis < ndim:
        raise ValueError(
            f"maxout: axis {axis!r} is out of bounds for an input of ndim {ndim}"
        )
    if x.dtype.kind != "f":
        raise type_check.InvalidType("x.dtype.kind == 'f'", f"x.dtype={x.dtype}")
    axis %= ndim
    if x_shape[axis] % pool_size != 0:
        raise type_check.InvalidType(
            "x.shape[axis] % pool_size == 0",
            f"x.shape[axis]={x_shape[axis]}, pool_size={pool_size}",
        )
    shape = (
        x_shape[:axis] + (x_shape[axis] // pool_size, pool_size) + x_shape[axis + 1 :]
    )
    return _MaxOverAxis(axis + 1).apply((reshape(x, shape),))[0]
