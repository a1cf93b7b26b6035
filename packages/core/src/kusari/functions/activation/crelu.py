"""Concatenated ReLU, ``concat((relu(x), relu(-x)), axis)``."""

from __future__ import annotations

from typing import Any

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.functions.activation.relu import ReLUGrad
from kusari.functions.array.get_item import get_item
from kusari.utils import force_array, type_check
from kusari.variable import Variable


class CReLU(FunctionNode):
    """Twice as long as ``x`` along ``axis``: positive part, then negative part."""

    def __init__(self, axis: int = 1) -> None:
        if not isinstance(axis, int) or isinstance(axis, bool):
            raise TypeError(f"crelu: axis must be an int, got {axis!r}")
        self.axis = axis

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        (x_type,) = in_types
        type_check.expect(x_type.dtype.kind == "f")
        if self.axis >= 0:
            type_check.expect(x_type.ndim > self.axis)
        else:
            type_check.expect(x_type.ndim >= -self.axis)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = inputs
        xp = backend.get_array_module(x)
        axis = self.axis % x.ndim
        self._axis = axis
        self._n = x.shape[axis]
        self.pos = x > 0
        self.neg = x < 0
        zero = x.dtype.type(0)
        y = xp.concatenate((xp.maximum(x, zero), xp.maximum(-x, zero)), axis=axis)
        return (force_array(y),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        (gy,) = grad_outputs
        lead = (slice(None),) * self._axis
        g_pos = get_item(gy, lead + (slice(None, self._n),))
        g_neg = get_item(gy, lead + (slice(self._n, None),))
        return (
            (
                ReLUGrad(self.pos).apply((g_pos,))[0]
                - ReLUGrad(self.neg).apply((g_neg,))[0]
            ),
        )


def crelu(x: Any, axis: int = 1) -> Variable:
    """Concatenated ReLU: ``relu(x)`` and ``relu(-x)`` joined along ``axis``.

    Args:
        x: Input variable of a float dtype.
        axis: Axis along which the two halves are concatenated.

    Returns:
        ~kusari.Variable: Twice as long as ``x`` along ``axis``.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.crelu(np.array([[-1., 2.]], np.float32)).array
        array([[0., 2., 1., 0.]], dtype=float32)
    """
    return CReLU(axis).apply((x,))[0]
