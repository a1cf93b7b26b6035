"""``cholesky``: the lower-triangular Cholesky factor of a symmetric PD matrix."""

from __future__ import annotations

from typing import Any

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.functions.math._helpers import check_square, linalg
from kusari.variable import Variable


class Cholesky(FunctionNode):
    @property
    def label(self) -> str:
        return "cholesky"

    def check_type_forward(self, in_types: Any) -> None:
        check_square(in_types, 2, "cholesky")

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_outputs((0,))
        (a,) = inputs
        xp = backend.get_array_module(a)
        return (linalg("cholesky", xp.linalg.cholesky, a),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        from kusari.functions.array.transpose import transpose
        from kusari.functions.math.inv import inv
        from kusari.functions.math.matmul import matmul

        (L,) = self.get_retained_outputs()
        gL = grad_outputs[0]
        xp = backend.get_array_module(L.array)
        n = L.shape[0]
        # Phi(L^T gL): lower triangle with a halved diagonal.
        mask = xp.tril(xp.ones((n, n), dtype=L.dtype)) - 0.5 * xp.eye(n, dtype=L.dtype)
        phi = matmul(L, gL, transa=True) * mask
        linv = inv(L)
        s = matmul(matmul(linv, phi, transa=True), linv)
        return ((s + transpose(s)) * 0.5,)


def cholesky(a: Any) -> Variable:
    """Cholesky factor ``L`` (lower triangular) with ``a = L L^T``.

    ``a`` must be symmetric positive definite; its gradient is symmetric.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.cholesky(np.array([[4., 2.], [2., 5.]], np.float32)).array
        array([[2., 0.],
               [1., 2.]], dtype=float32)
    """
    return Cholesky().apply((a,))[0]
