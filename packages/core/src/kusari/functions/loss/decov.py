"""DeCov loss: penalise covariance between hidden units."""

from __future__ import annotations

from typing import Any

from kusari import backend
from kusari.functions.loss._helpers import as_array, check_reduce, expect_types
from kusari.functions.loss.cross_covariance import _centered
from kusari.utils import type_check
from kusari.variable import Variable


def _check(in_types: Any) -> None:
    h, = in_types
    type_check.expect(h.dtype.kind == "f", h.ndim == 2)


def decov(h: Any, reduce: str = "half_squared_sum") -> Variable:
    """DeCov loss (Cogswell et al., 2016) of activations ``h``.

    The off-diagonal part of the covariance of ``h`` over the batch.

    Args:
        h: Activations of shape ``(N, M)``.
        reduce: ``'half_squared_sum'`` for ``0.5 * sum(C ** 2)``, or ``'no'``
            for the ``(M, M)`` covariance ``C`` with a zero diagonal.

    Returns:
        A scalar, or a variable of shape ``(M, M)``.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> h = np.array([[1., 1.], [-1., -1.]], np.float32)
        >>> F.decov(h).array
        array(1., dtype=float32)
    """
    from kusari.functions.math.matmul import matmul
    from kusari.functions.math.sum import sum as _sum

    check_reduce("decov", reduce, ("half_squared_sum", "no"))
    expect_types("DeCov", ("h",), (h,), _check)
    arr = as_array(h)
    xp = backend.get_array_module(arr)
    hc = _centered(h)
    m = arr.shape[1]
    off_diag = (1 - xp.eye(m, dtype=arr.dtype)) * (1.0 / arr.shape[0])
    cov = matmul(hc, hc, transa=True) * off_diag
    if reduce == "no":
        return cov
    return _sum(cov * cov) * 0.5
