"""Contrastive loss for siamese networks."""

from __future__ import annotations

from typing import Any

import numpy

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.functions.loss._helpers import check_reduce, sqrt
from kusari.utils import force_array, type_check
from kusari.variable import Variable

_DIST_FLOOR = 1e-7  # keeps diff / dist finite for coincident pairs (float16 too)


class Contrastive(FunctionNode):
    """``(y d^2 + (1 - y) max(margin - d, 0)^2) / 2`` with ``d = ||x0 - x1||``."""

    def __init__(self, margin: float, reduce: str = "mean") -> None:
        if margin <= 0:
            raise ValueError(
                f"contrastive: margin should be positive value, got {margin}"
            )
        check_reduce("contrastive", reduce, ("mean", "no"))
        self.margin = margin
        self.reduce = reduce

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x0", "x1", "y"))
        x0, x1, y = in_types
        type_check.expect(
            x0.dtype.kind == "f",
            x0.dtype == x1.dtype,
            y.dtype.kind == "i",
            x0.shape == x1.shape,
            x1.shape[0] == y.shape[0],
            x1.shape[0] > 0,
            x0.ndim == 2,
            x1.ndim == 2,
            y.ndim == 1,
        )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1, 2))
        x0, x1, y = inputs
        xp = backend.get_array_module(x0)
        diff = x0 - x1
        dist_sq = (diff * diff).sum(axis=1)
        mdist = xp.maximum(self.margin - xp.sqrt(dist_sq), 0)
        yf = y.astype(x0.dtype)
        loss = (yf * dist_sq + (1 - yf) * mdist * mdist) * x0.dtype.type(0.5)
        if self.reduce == "mean":
            return (force_array(loss.sum() / x0.shape[0], x0.dtype),)
        return (force_array(loss, x0.dtype),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        from kusari.functions.activation.relu import relu
        from kusari.functions.array.broadcast import broadcast_to
        from kusari.functions.array.reshape import reshape
        from kusari.functions.math.sum import sum as _sum

        x0, x1, y = self.get_retained_inputs()
        (gy,) = grad_outputs
        n, dim = x0.shape
        dtype = x0.dtype
        diff = x0 - x1
        dist_sq = _sum(diff * diff, axis=1)
        floor_sq = max(_DIST_FLOOR**2, float(numpy.finfo(dtype).tiny))
        small = (dist_sq.array < floor_sq).astype(dtype)
        dist = sqrt(dist_sq * (1 - small) + small * floor_sq)
        yf = y.array.astype(dtype)
        if self.reduce == "mean":
            alpha = broadcast_to(reshape(gy * (1.0 / n), (1, 1)), (n, 1))
        else:
            alpha = reshape(gy, (n, 1))
        mdist = relu(self.margin - dist)
        coeff = yf - (1 - yf) * mdist / dist  # (n,)
        gx0 = broadcast_to(alpha * reshape(coeff, (n, 1)), (n, dim)) * diff
        return tuple(gx0 if i == 0 else -gx0 if i == 1 else None for i in indexes)


def contrastive(
    x0: Any, x1: Any, y: Any, margin: float = 1, reduce: str = "mean"
) -> Variable:
    """Contrastive loss between pairs ``x0[i]``, ``x1[i]`` labelled ``y[i]``.

    Similar pairs (``y = 1``) are pulled together; dissimilar ones
    (``y = 0``) are pushed at least ``margin`` apart.

    Args:
        x0: First embeddings, shape ``(N, K)``.
        x1: Second embeddings, shape ``(N, K)``.
        y: Integer labels of shape ``(N,)``: 1 for similar, 0 for dissimilar.
        margin: Positive margin for dissimilar pairs.
        reduce: ``'mean'`` (sum over pairs divided by ``N``) or ``'no'``.

    Returns:
        A scalar, or a variable of shape ``(N,)``.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> a = np.zeros((1, 2), np.float32)
        >>> F.contrastive(a, a, np.array([0], np.int32)).array
        array(0.5, dtype=float32)
    """
    return Contrastive(margin, reduce).apply((x0, x1, y))[0]
