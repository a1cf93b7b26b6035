"""``sparse_matmul``: product of a COO sparse matrix and a dense one."""

from __future__ import annotations

from typing import Any

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.utils import type_check
from kusari.variable import Variable, as_variable


class _ScatterAddRows(FunctionNode):
    """``out[idx] += v`` into zeros of ``shape`` (idx: a tuple of index arrays)."""

    def __init__(self, idx: tuple[Any, ...], shape: tuple[int, ...]) -> None:
        self.idx = idx
        self.shape = shape

    @property
    def label(self) -> str:
        return "sparse_matmul"

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (v,) = inputs
        xp = backend.get_array_module(v)
        out = xp.zeros(self.shape, dtype=v.dtype)
        xp.add.at(out, self.idx, v)
        return (out,)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        from kusari.functions.array.get_item import get_item

        return (get_item(grad_outputs[0], self.idx),)


def _coo_times_dense(
    data: Variable, row: Any, col: Any, m: int, d: Variable
) -> Variable:
    """``S @ d`` for S = COO(data, row, col) with ``m`` rows; batched if data is 2-D."""
    from kusari.functions.array.broadcast import broadcast_to
    from kusari.functions.array.get_item import get_item
    from kusari.functions.array.reshape import reshape

    xp = backend.get_array_module(data.array)
    # Indices built on the host (e.g. by to_coo on a NumPy array) follow the data.
    row = xp.asarray(row)
    col = xp.asarray(col)
    valid = (row >= 0) & (col >= 0)
    if not bool(xp.all(valid)):  # padding: point at 0 and zero the value
        row = xp.where(valid, row, 0)
        col = xp.where(valid, col, 0)
        data = data * valid.astype(data.dtype)
    n = d.shape[-1]
    if data.ndim == 1:
        idx_in: tuple[Any, ...] = (col,)
        idx_out: tuple[Any, ...] = (row,)
        out_shape: tuple[int, ...] = (m, n)
    else:
        b = xp.broadcast_to(xp.arange(data.shape[0])[:, None], data.shape)
        idx_in = (b, col)
        idx_out = (b, row)
        out_shape = (data.shape[0], m, n)
    gathered = get_item(d, idx_in)  # (..., nnz, n)
    vals = broadcast_to(reshape(data, data.shape + (1,)), gathered.shape) * gathered
    return _ScatterAddRows(idx_out, out_shape).apply((vals,))[0]


def _swap_last(x: Variable) -> Variable:
    from kusari.functions.array.transpose import transpose

    axes = tuple(range(x.ndim - 2)) + (x.ndim - 1, x.ndim - 2)
    return transpose(x, axes)


def sparse_matmul(
    a: Any, b: Any, transa: bool = False, transb: bool = False
) -> Variable:
    """Matrix product where one operand is a :class:`~kusari.utils.sparse.CooMatrix`.

    Shapes: ``(M, K) @ (K, N)`` or batched ``(B, M, K) @ (B, K, N)``; the
    result is dense. Gradients flow to the sparse ``data`` and the dense operand.

    Args:
        a: A CooMatrix or a dense variable.
        b: A dense variable or a CooMatrix (exactly one of a, b is sparse).
        transa: Use the transpose of ``a``.
        transb: Use the transpose of ``b``.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> from kusari.utils.sparse import to_coo
        >>> sp = to_coo(np.array([[0., 2.], [1., 0.]], np.float32))
        >>> F.sparse_matmul(sp, np.ones((2, 3), np.float32)).array
        array([[2., 2., 2.],
               [1., 1., 1.]], dtype=float32)
    """
    from kusari.utils.sparse import CooMatrix

    a_sp = isinstance(a, CooMatrix)
    b_sp = isinstance(b, CooMatrix)
    if a_sp == b_sp:
        raise TypeError(
            "sparse_matmul: exactly one of a and b must be a CooMatrix, got "
            f"{type(a).__name__} and {type(b).__name__}"
        )
    sp: CooMatrix = a if a_sp else b
    dense = as_variable(b if a_sp else a)
    if sp.data.dtype != dense.dtype or dense.dtype.kind != "f":
        raise type_check.InvalidType(
            "sparse_matmul: sparse and dense operands have one float dtype",
            f"{sp.data.dtype} and {dense.dtype}",
        )
    batched = sp.data.ndim == 2
    if dense.ndim != (3 if batched else 2):
        raise type_check.InvalidType(
            f"sparse_matmul: the dense operand has ndim {3 if batched else 2}",
            f"ndim={dense.ndim}",
        )
    # Reduce everything to S' @ D' with S' sparse.
    if a_sp:
        swap = transa
        d = _swap_last(dense) if transb else dense
    else:
        swap = not transb  # (a' @ S')^T = S'^T @ a'^T
        d = dense if transa else _swap_last(dense)
    rows, cols = sp.shape
    r, c = (sp.col, sp.row) if swap else (sp.row, sp.col)
    m, k = (cols, rows) if swap else (rows, cols)
    if d.shape[-2] != k or (batched and d.shape[0] != sp.data.shape[0]):
        raise type_check.InvalidType(
            "sparse_matmul: the contracted axes of a and b have the same length",
            f"sparse {sp.shape} (batch {sp.data.shape[:-1]}), dense {dense.shape}, "
            f"transa={transa}, transb={transb}",
        )
    y = _coo_times_dense(sp.data, r, c, m, d)
    return y if a_sp else _swap_last(y)
