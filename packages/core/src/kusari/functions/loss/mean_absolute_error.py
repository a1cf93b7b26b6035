"""Mean absolute error."""

from __future__ import annotations

from typing import Any

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.functions.loss.absolute_error import _check_pair
from kusari.variable import Variable


class MeanAbsoluteError(FunctionNode):
    """``mean(|x0 - x1|)`` over all elements."""

    check_type_forward = staticmethod(_check_pair)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x0, x1 = inputs
        diff = x0 - x1
        xp = backend.get_array_module(diff)
        self._sign = xp.sign(diff)
        self._shape = diff.shape
        total = abs(diff).sum(dtype=diff.dtype)
        return (xp.asarray(total / max(diff.size, 1), dtype=x0.dtype),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        from kusari.functions.array.broadcast import broadcast_to

        (gy,) = grad_outputs
        size = max(self._sign.size, 1)
        gx = broadcast_to(gy * (1.0 / size), self._shape) * self._sign
        return tuple(gx if i == 0 else -gx for i in indexes)


def mean_absolute_error(x0: Any, x1: Any) -> Variable:
    """Mean of the absolute differences of ``x0`` and ``x1``.

    Args:
        x0: First input variable.
        x1: Second input variable, of the same shape and dtype.

    Returns:
        A scalar variable.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.mean_absolute_error(np.array([1., -2.], np.float32),
        ...                       np.array([0., 1.], np.float32)).array
        array(2., dtype=float32)
    """
    return MeanAbsoluteError().apply((x0, x1))[0]
