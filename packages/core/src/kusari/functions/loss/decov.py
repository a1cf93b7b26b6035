"""DeCov loss: penalise covariance between hidden units."""

from __future__ import annotations

from typing import Any

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.functions.loss._helpers import check_reduce
from kusari.functions.loss.cross_covariance import _centered
from kusari.utils import force_array, type_check
from kusari.variable import Variable


class DeCov(FunctionNode):
    """Off-diagonal covariance of ``h`` over the batch, and its reduction."""

    def __init__(self, reduce: str = "half_squared_sum") -> None:
        check_reduce("decov", reduce, ("half_squared_sum", "no"))
        self.reduce = reduce

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("h",))
        (h,) = in_types
        type_check.expect(h.dtype.kind == "f", h.ndim == 2)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        (h,) = inputs
        xp = backend.get_array_module(h)
        n, m = h.shape
        self._off = (1 - xp.eye(m, dtype=h.dtype)) * h.dtype.type(1.0 / n)
        hc = h - h.mean(axis=0, keepdims=True)
        cov = hc.T.dot(hc) * self._off
        if self.reduce == "no":
            return (force_array(cov, h.dtype),)
        return (force_array((cov * cov).sum() * h.dtype.type(0.5), h.dtype),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        from kusari.functions.array.transpose import transpose
        from kusari.functions.math.matmul import matmul

        (h,) = self.get_retained_inputs()
        (gy,) = grad_outputs
        hc = _centered(h)
        if self.reduce == "no":
            g_cov = gy * self._off
        else:
            g_cov = matmul(hc, hc, transa=True) * self._off * self._off * gy
        # The batch mean of hc is zero, so centring adds nothing here.
        return (matmul(hc, g_cov + transpose(g_cov)),)


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
    return DeCov(reduce).apply((h,))[0]
