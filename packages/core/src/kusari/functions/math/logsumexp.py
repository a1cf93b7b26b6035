"""``logsumexp``: ``log(sum(exp(x)))`` computed stably."""

from __future__ import annotations

from typing import Any

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.functions.math._helpers import check_float_unary, expand_reduced
from kusari.functions.math.sum import _normalize_axis
from kusari.utils import force_array
from kusari.variable import Variable


class LogSumExp(FunctionNode):
    check_type_forward = staticmethod(check_float_unary)

    def __init__(self, axis: Any = None) -> None:
        self.axis = axis

    @property
    def label(self) -> str:
        return "logsumexp"

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        self.retain_outputs((0,))
        (x,) = inputs
        xp = backend.get_array_module(x)
        self._axis = _normalize_axis(self.axis, x.ndim, "logsumexp")
        m = x.max(axis=self._axis, keepdims=True)
        m = xp.where(xp.isfinite(m), m, xp.zeros_like(m))
        s = xp.exp(x - m).sum(axis=self._axis, keepdims=True)
        y = xp.log(s) + m
        y = y.reshape(
            [
                d
                for i, d in enumerate(x.shape)
                if self._axis is not None and i not in self._axis
            ]
        )
        return (force_array(y, x.dtype),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        from kusari.functions.array.broadcast import broadcast_to
        from kusari.functions.math.exponential import exp

        (x,) = self.get_retained_inputs()
        (y,) = self.get_retained_outputs()
        shape = x.shape
        gy = broadcast_to(
            expand_reduced(grad_outputs[0], shape, self._axis, False), shape
        )
        yb = broadcast_to(expand_reduced(y, shape, self._axis, False), shape)
        return (gy * exp(x - yb),)


def logsumexp(x: Any, axis: Any = None) -> Variable:
    """Log of the sum of exponentials over the given axes (all by default).

    Args:
        x: Input variable.
        axis: None, an int, or a tuple of ints.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> float(F.logsumexp(np.zeros(2, np.float32)).array)  # log(2)
        0.6931471824645996
    """
    return LogSumExp(axis).apply((x,))[0]
