"""Triplet loss."""

from __future__ import annotations

from typing import Any

from kusari.functions.loss._helpers import check_reduce, expect_types
from kusari.utils import type_check
from kusari.variable import Variable


def _check(in_types: Any) -> None:
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


def triplet(anchor: Any, positive: Any, negative: Any, margin: float = 0.2,
            reduce: str = "mean") -> Variable:
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
    from kusari.functions.activation.relu import relu
    from kusari.functions.math.sum import sum as _sum

    if margin <= 0:
        raise ValueError(f"triplet: margin should be positive value, got {margin}")
    check_reduce("triplet", reduce, ("mean", "no"))
    expect_types("Triplet", ("anchor", "positive", "negative"),
                 (anchor, positive, negative), _check)
    d_pos = anchor - positive
    d_neg = anchor - negative
    loss = relu(_sum(d_pos * d_pos, axis=1) - _sum(d_neg * d_neg, axis=1) + margin)
    if reduce == "mean":
        return _sum(loss) * (1.0 / loss.shape[0])
    return loss
