"""``diagonal``: a diagonal of a (batched) matrix (a view)."""

from __future__ import annotations

from typing import Any

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.utils import type_check
from kusari.variable import Variable


def _diag_index(
    shape: tuple[int, ...], offset: int, axis1: int, axis2: int, xp: Any
) -> tuple[Any, ...]:
    n1, n2 = shape[axis1], shape[axis2]
    r0, c0 = max(-offset, 0), max(offset, 0)
    n = max(0, min(n1 - r0, n2 - c0))
    i = xp.arange(n)
    return i + r0, i + c0


class Diagonal(FunctionNode):
    """Take the ``offset`` diagonal of axes ``axis1`` and ``axis2``."""

    def __init__(self, offset: int, axis1: int, axis2: int) -> None:
        self.offset = offset
        self.axis1 = axis1
        self.axis2 = axis2

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        x = in_types[0]
        type_check.expect(x.ndim >= 2)
        for a in (self.axis1, self.axis2):
            type_check.expect(-x.ndim <= a, a < x.ndim)
        ndim = type_check.eval(x.ndim)
        if self.axis1 % ndim == self.axis2 % ndim:
            raise ValueError(
                f"diagonal: axis1 and axis2 cannot be the same "
                f"({self.axis1}, {self.axis2})"
            )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = inputs
        self._in_shape = x.shape
        self._in_dtype = x.dtype
        return (x.diagonal(self.offset, self.axis1, self.axis2),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        return DiagonalGrad(self._in_shape, self.offset, self.axis1, self.axis2).apply(
            grad_outputs
        )


class DiagonalGrad(FunctionNode):
    """Write a diagonal into a zero array (the adjoint of ``diagonal``)."""

    def __init__(
        self, shape: tuple[int, ...], offset: int, axis1: int, axis2: int
    ) -> None:
        self.shape = shape
        self.offset = offset
        self.axis1 = axis1 % len(shape)
        self.axis2 = axis2 % len(shape)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (gy,) = inputs
        xp = backend.get_array_module(gy)
        gx = xp.zeros(self.shape, dtype=gy.dtype)
        view = xp.moveaxis(gx, (self.axis1, self.axis2), (-2, -1))
        rows, cols = _diag_index(self.shape, self.offset, self.axis1, self.axis2, xp)
        view[..., rows, cols] = gy
        return (gx,)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        return (diagonal(grad_outputs[0], self.offset, self.axis1, self.axis2),)


def diagonal(x: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Variable:
    """The diagonal of ``x`` over ``axis1``/``axis2`` (as ``numpy.diagonal``).

    Args:
        x: Input variable with at least two axes.
        offset: Offset from the main diagonal (positive: above).
        axis1: First axis of the 2-D sub-arrays.
        axis2: Second axis of the 2-D sub-arrays.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.diagonal(np.arange(9, dtype=np.float32).reshape(3, 3)).array
        array([0., 4., 8.], dtype=float32)
    """
    return Diagonal(offset, axis1, axis2).apply((x,))[0]
