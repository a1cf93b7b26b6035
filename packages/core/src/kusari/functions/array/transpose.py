"""``transpose``: permute the axes."""

from __future__ import annotations

from typing import Any

import numpy

from kusari.function_node import FunctionNode
from kusari.utils import type_check
from kusari.variable import Variable


class Transpose(FunctionNode):
    """Permute the axes (reverse them when ``axes`` is None)."""

    def __init__(self, axes: Any = None) -> None:
        self.axes = None if axes is None else tuple(axes)

    @property
    def label(self) -> str:
        return "Transpose"

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        if self.axes is not None:
            ndim = type_check.eval(in_types[0].ndim)
            perm = sorted(
                a % ndim if -ndim <= a < ndim else a + 10**9 for a in self.axes
            )
            if len(self.axes) != ndim or perm != list(range(ndim)):
                raise type_check.InvalidType(
                    f"axes {self.axes} is a permutation of range(in_types[0].ndim)",
                    f"in_types[0].ndim == {ndim}",
                )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = inputs
        return (x.transpose(self.axes),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        gy = grad_outputs[0]
        if self.axes is None:
            return (transpose(gy),)
        inv = tuple(numpy.argsort([a % gy.ndim for a in self.axes]))
        return (transpose(gy, inv),)


def transpose(x: Any, axes: Any = None) -> Variable:
    """Permute the axes of ``x``.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.transpose(np.zeros((2, 3, 4), np.float32), (2, 0, 1)).shape
        (4, 2, 3)
    """
    return Transpose(axes).apply((x,))[0]
