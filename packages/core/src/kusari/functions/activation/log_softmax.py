"""Log-softmax and the log-sum-exp it rests on."""

from __future__ import annotations

from typing import Any

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.utils import type_check
from kusari.variable import Variable


def _logsumexp(x: Any, axis: int) -> Any:
    xp = backend.get_array_module(x)
    m = x.max(axis=axis, keepdims=True)
    y = x - m
    xp.exp(y, out=y)
    s = y.sum(axis=axis, keepdims=True)
    xp.log(s, out=s)
    return m + s


class LogSoftmax(FunctionNode):
    """``x - logsumexp(x)`` along an axis, computed stably."""

    def __init__(self, axis: int = 1) -> None:
        self.axis = axis

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        x = in_types[0]
        type_check.expect(x.dtype.kind == "f", -x.ndim <= self.axis, self.axis < x.ndim)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_outputs((0,))
        (x,) = inputs
        return (x - _logsumexp(x, self.axis),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        from kusari.functions.array.broadcast import broadcast_to
        from kusari.functions.math.exponential import exp
        from kusari.functions.math.sum import sum as _sum

        (y,) = self.get_retained_outputs()
        (gy,) = grad_outputs
        s = broadcast_to(_sum(gy, axis=self.axis, keepdims=True), gy.shape)
        return (gy - exp(y) * s,)


def log_softmax(x: Any, axis: int = 1) -> Variable:
    """Logarithm of the softmax along ``axis``, without overflow.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> y = F.log_softmax(np.zeros((1, 2), np.float32))
        >>> np.allclose(y.array, np.log(0.5))
        True
    """
    return LogSoftmax(axis).apply((x,))[0]
