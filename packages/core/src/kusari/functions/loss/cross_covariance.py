"""Cross-covariance loss between two sets of features."""

from __future__ import annotations

from typing import Any

from kusari.function_node import FunctionNode
from kusari.functions.loss._helpers import check_reduce
from kusari.utils import force_array, type_check
from kusari.variable import Variable


def _centered(x: Any) -> Variable:
    from kusari.functions.array.broadcast import broadcast_to
    from kusari.functions.math.sum import sum as _sum

    mean = _sum(x, axis=0, keepdims=True) * (1.0 / x.shape[0])
    return x - broadcast_to(mean, x.shape)


class CrossCovariance(FunctionNode):
    """Cross-covariance ``C = (y - mean y)^T (z - mean z) / N`` and its reduction."""

    def __init__(self, reduce: str = "half_squared_sum") -> None:
        check_reduce("cross_covariance", reduce, ("half_squared_sum", "no"))
        self.reduce = reduce

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("y", "z"))
        y, z = in_types
        type_check.expect(
            y.dtype.kind == "f",
            y.dtype == z.dtype,
            y.ndim == 2,
            z.ndim == 2,
            y.shape[0] == z.shape[0],
        )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        y, z = inputs
        yc = y - y.mean(axis=0, keepdims=True)
        zc = z - z.mean(axis=0, keepdims=True)
        cov = yc.T.dot(zc) * y.dtype.type(1.0 / y.shape[0])
        if self.reduce == "no":
            return (force_array(cov, y.dtype),)
        return (force_array((cov * cov).sum() * y.dtype.type(0.5), y.dtype),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        from kusari.functions.math.matmul import matmul

        y, z = self.get_retained_inputs()
        (gy,) = grad_outputs
        inv_n = 1.0 / y.shape[0]
        yc = _centered(y)
        zc = _centered(z)
        if self.reduce == "no":
            g_cov = gy
        else:
            g_cov = matmul(yc, zc, transa=True) * (gy * inv_n)
        # The batch means of yc, zc are zero, so centring adds nothing here.
        ret = []
        for i in indexes:
            if i == 0:
                ret.append(matmul(zc, g_cov, transb=True) * inv_n)
            else:
                ret.append(matmul(yc, g_cov) * inv_n)
        return tuple(ret)


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
    return CrossCovariance(reduce).apply((y, z))[0]
