"""Triplet loss."""

from __future__ import annotations

from typing import Any

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.functions.loss._helpers import check_reduce
from kusari.utils import force_array, type_check
from kusari.variable import Variable


class Triplet(FunctionNode):
    """``max(||a - p||^2 - ||a - n||^2 + margin, 0)`` per row."""

    def __init__(self, margin: float, reduce: str = "mean") -> None:
        if margin <= 0:
            raise ValueError(f"triplet: margin should be positive value, got {margin}")
        check_reduce("triplet", reduce, ("mean", "no"))
        self.margin = margin
        self.reduce = reduce

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("anchor", "positive", "negative"))
        a, p, n = in_types
        type_check.expect(
            a.dtype.kind == "f",
            a.dtype == p.dtype,
            a.dtype == n.dtype,
            a.ndim == 2,
            a.shape == p.shape,
            a.shape == n.shape,
            a.shape[0] > 0,
        )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1, 2))
        a, p, n = inputs
        xp = backend.get_array_module(a)
        d_pos = a - p
        d_neg = a - n
        hinge = (
            (d_pos * d_pos).sum(axis=1)
            - (d_neg * d_neg).sum(axis=1)
            + a.dtype.type(self.margin)
        )
        self._active = (hinge > 0).astype(a.dtype)
        loss = xp.maximum(hinge, 0)
        if self.reduce == "mean":
            return (force_array(loss.mean(), a.dtype),)
        return (force_array(loss, a.dtype),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        from kusari.functions.array.broadcast import broadcast_to
        from kusari.functions.array.reshape import reshape

        a, p, n = self.get_retained_inputs()
        (gy,) = grad_outputs
        rows, dim = a.shape
        if self.reduce == "mean":
            gy = broadcast_to(reshape(gy * (1.0 / rows), (1, 1)), (rows, 1))
        else:
            gy = reshape(gy, (rows, 1))
        g = broadcast_to(gy * (2.0 * self._active[:, None]), (rows, dim))
        grads = {0: lambda: g * (n - p), 1: lambda: g * (p - a), 2: lambda: g * (a - n)}
        return tuple(grads[i]() for i in indexes)


def triplet(
    anchor: Any, positive: Any, negative: Any, margin: float = 0.2, reduce: str = "mean"
) -> Variable:
    """Triplet loss ``max(||a - p||^2 - ||a - n||^2 + margin, 0)``.

    Args:
        anchor: Anchor embeddings, shape ``(N, K)``.
        positive: Embeddings of the same class, shape ``(N, K)``.
        negative: Embeddings of another class, shape ``(N, K)``.
        margin: Positive margin.
        reduce: ``'mean'`` for a scalar, ``'no'`` for one loss per triplet.

    Returns:
        A scalar, or a variable of shape ``(N,)``.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> a = np.zeros((1, 2), np.float32)
        >>> F.triplet(a, a, a).array
        array(0.2, dtype=float32)
    """
    return Triplet(margin, reduce).apply((anchor, positive, negative))[0]
