"""Cross-covariance loss between two sets of features."""

from __future__ import annotations

from typing import Any

from kusari.functions.loss._helpers import check_reduce, expect_types
from kusari.utils import type_check
from kusari.variable import Variable


def _check(in_types: Any) -> None:
    y, z = in_types
    type_check.expect(
        y.dtype.kind == "f",
        y.dtype == z.dtype,
        y.ndim == 2,
        z.ndim == 2,
        y.shape[0] == z.shape[0],
    )


def _centered(x: Any) -> Variable:
    from kusari.functions.array.broadcast import broadcast_to
    from kusari.functions.math.sum import sum as _sum

    mean = _sum(x, axis=0, keepdims=True) * (1.0 / x.shape[0])
    return x - broadcast_to(mean, x.shape)


def cross_covariance(y: Any, z: Any, reduce: str = "half_squared_sum") -> Variable:
    """Cross-covariance of ``y`` and ``z`` over the batch (axis 0).

    Args:
        y: Features of shape ``(N, M)``.
        z: Features of shape ``(N, K)``.
        reduce: ``'half_squared_sum'`` for ``0.5 * sum(C ** 2)``, or ``'no'``
            for the ``(M, K)`` cross-covariance matrix ``C``.

    Returns:
        A scalar, or a variable of shape ``(M, K)``.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> y = np.array([[1.], [-1.]], np.float32)
        >>> F.cross_covariance(y, y).array
        array(0.5, dtype=float32)
    """
    from kusari.functions.math.matmul import matmul
    from kusari.functions.math.sum import sum as _sum

    check_reduce("cross_covariance", reduce, ("half_squared_sum", "no"))
    expect_types("CrossCovariance", ("y", "z"), (y, z), _check)
    yc = _centered(y)
    zc = _centered(z)
    cov = matmul(yc, zc, transa=True) * (1.0 / yc.shape[0])
    if reduce == "no":
        return cov
    return _sum(cov * cov) * 0.5
