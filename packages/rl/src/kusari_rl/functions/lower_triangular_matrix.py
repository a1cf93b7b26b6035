"""Assemble a batch of lower triangular matrices from their entries.

NAF-style agents parametrise ``P = L L^T`` by ``L``'s diagonal (kept
positive by the caller) and its strictly lower part; this op scatters those
two vectors into ``(batch, n, n)`` matrices. Its gradient gathers the same
entries back, and the gather's gradient is the scatter again, so the pair is
closed under differentiation.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.utils import type_check
from kusari.variable import Variable


@functools.lru_cache(maxsize=64)
def _tril_indices(n: int) -> tuple[Any, Any]:
    return numpy.tril_indices(n, -1)


def _scatter(diag: Any, non_diag: Any) -> Any:
    xp = backend.get_array_module(diag)
    batch, n = diag.shape
    y = xp.zeros((batch, n, n), dtype=diag.dtype)
    rows, cols = _tril_indices(n)
    y[:, rows, cols] = non_diag
    idx = numpy.arange(n)
    y[:, idx, idx] = diag
    return y


def _gather(y: Any) -> tuple[Any, Any]:
    n = y.shape[1]
    rows, cols = _tril_indices(n)
    idx = numpy.arange(n)
    return y[:, idx, idx], y[:, rows, cols]


class LowerTriangularMatrix(FunctionNode):
    """``(diag (B, n), non_diag (B, n(n-1)/2)) -> L (B, n, n)``."""

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("diag", "non_diag"))
        diag, non_diag = in_types
        type_check.expect(
            diag.dtype.kind == "f",
            non_diag.dtype == diag.dtype,
            diag.ndim == 2,
            non_diag.ndim == 2,
            diag.shape[0] == non_diag.shape[0],
        )
        n = type_check.eval(diag.shape[1])
        m = type_check.eval(non_diag.shape[1])
        if n * (n - 1) // 2 != m:
            raise type_check.InvalidType(
                "non_diag.shape[1] == diag.shape[1] * (diag.shape[1] - 1) / 2",
                f"{m} != {n * (n - 1) // 2}",
            )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return (_scatter(*inputs),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        return _GatherLowerTriangular().apply(grad_outputs)


class _GatherLowerTriangular(FunctionNode):
    """Inverse of the scatter: read the diagonal and the strictly lower part."""

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (y,) = inputs
        self._batch, self._n = y.shape[:2]
        d, nd = _gather(y)
        return d.copy(), nd.copy()

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        gd, gnd = grad_outputs
        # An unused output gets no gradient; stand in zeros of its shape.
        ref = gd if gd is not None else gnd
        xp = backend.get_array_module(ref.array)
        batch, n = self._batch, self._n
        if gd is None:
            gd = Variable(xp.zeros((batch, n), ref.dtype), requires_grad=False)
        if gnd is None:
            gnd = Variable(
                xp.zeros((batch, n * (n - 1) // 2), ref.dtype), requires_grad=False
            )
        return LowerTriangularMatrix().apply((gd, gnd))


def lower_triangular_matrix(diag: Any, non_diag: Any) -> Variable:
    """Batch of lower triangular matrices from diagonal and off-diagonal entries.

    Args:
        diag: ``(batch, n)`` diagonal entries.
        non_diag: ``(batch, n * (n - 1) / 2)`` strictly-lower entries in
            row-major order (``numpy.tril_indices(n, -1)``).

    Returns:
        ``(batch, n, n)`` matrices, zero above the diagonal.

    Example:
        >>> import numpy as np
        >>> from kusari_rl.functions import lower_triangular_matrix
        >>> lower_triangular_matrix(np.array([[1., 2.]], np.float32),
        ...                         np.array([[3.]], np.float32)).array
        array([[[1., 0.],
                [3., 2.]]], dtype=float32)
    """
    return LowerTriangularMatrix().apply((diag, non_diag))[0]
