"""Huber loss (smooth L1)."""

from __future__ import annotations

from typing import Any

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.functions.loss._helpers import check_reduce
from kusari.utils import force_array, type_check
from kusari.variable import Variable


class HuberLoss(FunctionNode):
    """Quadratic within ``delta`` of the target, linear beyond."""

    def __init__(self, delta: float, reduce: str = "sum_along_second_axis") -> None:
        self.delta = delta
        self.reduce = reduce

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x", "t"))
        x, t = in_types
        type_check.expect(
            x.dtype.kind == "f",
            x.dtype == t.dtype,
            x.shape == t.shape,
        )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, t = inputs
        xp = backend.get_array_module(x)
        diff = x - t
        adiff = abs(diff)
        delta = x.dtype.type(self.delta)
        self._mask = (adiff <= delta).astype(x.dtype)
        y = xp.where(
            adiff <= delta,
            diff * diff * x.dtype.type(0.5),
            delta * (adiff - delta * x.dtype.type(0.5)),
        )
        if self.reduce == "sum_along_second_axis":
            y = y.sum(axis=1)
        return (force_array(y, x.dtype),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        from kusari.functions.array.broadcast import broadcast_to
        from kusari.functions.array.reshape import reshape

        x, t = self.get_retained_inputs()
        (gy,) = grad_outputs
        xp = backend.get_array_module(x.array)
        diff = x - t
        outside = (1 - self._mask) * (self.delta * xp.sign(diff.array)).astype(x.dtype)
        g = diff * self._mask + outside
        if self.reduce == "sum_along_second_axis":
            shape = list(x.shape)
            shape[1] = 1
            gy = broadcast_to(reshape(gy, tuple(shape)), x.shape)
        gx = gy * g
        return tuple(gx if i == 0 else -gx for i in indexes)


def huber_loss(
    x: Any, t: Any, delta: float, reduce: str = "sum_along_second_axis"
) -> Variable:
    """Huber loss: ``0.5 d^2`` where ``|d| <= delta``, else ``delta (|d| - delta / 2)``.

    Args:
        x: Predictions, shape ``(N, K, ...)``.
        t: Targets of ``x``'s shape and dtype.
        delta: Where the loss switches from quadratic to linear.
        reduce: ``'sum_along_second_axis'`` sums over axis 1; ``'no'``
            returns the elementwise loss.

    Returns:
        A variable of shape ``(N, ...)`` (summed) or ``x``'s shape.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> x = np.array([[0., 3.]], np.float32)
        >>> F.huber_loss(x, np.zeros_like(x), delta=1.0).array
        array([2.5], dtype=float32)
    """
    check_reduce("huber_loss", reduce, ("sum_along_second_axis", "no"))
    return HuberLoss(delta=delta, reduce=reduce).apply((x, t))[0]
