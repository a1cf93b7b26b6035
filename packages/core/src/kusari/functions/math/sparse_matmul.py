"""``sparse_matmul``: product of a COO sparse matrix and a dense one."""

from __future__ import annotations

from typing import Any

import numpy

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.utils import type_check
from kusari.variable import Variable, as_variable


class SparseMatmulOperandError(TypeError, ValueError):
    """Neither or both operands of ``sparse_matmul`` are sparse.

    Chainer v7 raises ``ValueError`` here; kusari raised ``TypeError``. This
    is both, so either ``except`` clause keeps working.
    """


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
    result is dense, of the operands' result dtype (float16 with float32 gives
    float32, as in Chainer v7). Gradients flow to the sparse ``data`` and the
    dense operand, each in its own dtype.

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
        raise SparseMatmulOperandError(
            "sparse_matmul: exactly one of a and b must be a CooMatrix, got "
            f"{type(a).__name__} and {type(b).__name__}"
        )
    sp: CooMatrix = a if a_sp else b
    dense = b if a_sp else a
    if a_sp:
        return _sparse_times(sp.data, sp.row, sp.col, sp.shape, dense, transa, transb)
    # a' @ S' = (S'^T @ a'^T)^T
    y = _sparse_times(sp.data, sp.row, sp.col, sp.shape, dense, not transb, not transa)
    return _swap_last(y)


def _sparse_times(
    data: Any,
    row: Any,
    col: Any,
    shape: tuple[int, ...],
    dense: Any,
    trans_sp: bool,
    trans_dn: bool,
) -> Variable:
    """``op(S) @ op(D)`` for S = COO(data, row, col, shape), batched if data is 2-D."""
    from kusari.functions.array.cast import cast

    data = as_variable(data)
    dense = as_variable(dense)
    if data.dtype.kind != "f" or dense.dtype.kind != "f":
        raise type_check.InvalidType(
            "sparse_matmul: sparse and dense operands are floats",
            f"{data.dtype} and {dense.dtype}",
        )
    batched = data.ndim == 2
    if dense.ndim != (3 if batched else 2):
        raise type_check.InvalidType(
            f"sparse_matmul: the dense operand has ndim {3 if batched else 2}",
            f"ndim={dense.ndim}",
        )
    d = _swap_last(dense) if trans_dn else dense
    rows, cols = shape
    r, c = (col, row) if trans_sp else (row, col)
    m, k = (cols, rows) if trans_sp else (rows, cols)
    if d.shape[-2] != k or (batched and d.shape[0] != data.shape[0]):
        raise type_check.InvalidType(
            "sparse_matmul: the contracted axes of a and b have the same length",
            f"sparse {tuple(shape)} (batch {data.shape[:-1]}), dense "
            f"{dense.shape}, sparse transposed={trans_sp}, "
            f"dense transposed={trans_dn}",
        )
    # Mixed float dtypes compute in their result type, as v7 does; cast()
    # hands each gradient back in its own input's dtype.
    out_dtype = numpy.result_type(data.dtype, d.dtype)
    if data.dtype != out_dtype:
        data = cast(data, out_dtype)
    if d.dtype != out_dtype:
        d = cast(d, out_dtype)
    return _coo_times_dense(data, r, c, m, d)


class CooMatMul:
    """Chainer v7's ``CooMatMul`` node: ``op(S) @ op(D)``, optionally transposed.

    ``S`` is the COO matrix ``(data, sp_row, sp_col, sp_shape)`` whose
    ``data`` is the first input of :meth:`apply`; ``D`` is the second. kusari
    builds the product from its differentiable gather, multiply and
    scatter-add nodes, so gradients of any order flow to both inputs.

    Args:
        sp_row: Row indices, ``(nnz,)`` or batched ``(B, nnz)``.
        sp_col: Column indices, the shape of ``sp_row``.
        sp_shape: ``(rows, cols)`` of one sparse matrix.
        sp_order: Accepted for v7's signature (it only tunes v7's GPU kernel).
        transa: Transpose ``S``.
        transb: Transpose ``D``.
        transc: Transpose the product.
        dtype: Output dtype; the inputs' result type if ``None``.

    Example:
        >>> import numpy as np
        >>> from kusari.utils import to_coo
        >>> sp = to_coo(np.array([[0., 2.], [1., 0.]], np.float32))
        >>> node = CooMatMul(sp.row, sp.col, sp.shape)
        >>> node.apply((sp.data, np.ones((2, 1), np.float32)))[0].array
        array([[2.],
               [1.]], dtype=float32)
    """

    def __init__(
        self,
        sp_row: Any,
        sp_col: Any,
        sp_shape: tuple[int, int],
        sp_order: str = "other",
        transa: bool = False,
        transb: bool = False,
        transc: bool = False,
        dtype: Any = None,
    ) -> None:
        if sp_row.ndim != sp_col.ndim or sp_row.shape != sp_col.shape:
            raise ValueError(
                "CooMatMul: sp_row and sp_col have one shape, got "
                f"{sp_row.shape} and {sp_col.shape}"
            )
        if sp_row.ndim not in (1, 2):
            raise ValueError(f"CooMatMul: sp_row has ndim 1 or 2, got {sp_row.ndim}")
        if len(sp_shape) != 2:
            raise ValueError(
                f"CooMatMul: sp_shape has two entries, got {tuple(sp_shape)}"
            )
        self.sp_row = sp_row
        self.sp_col = sp_col
        self.sp_shape = tuple(sp_shape)
        self.sp_order = sp_order
        self.transa = transa
        self.transb = transb
        self.transc = transc
        self.dtype = dtype

    def apply(self, inputs: tuple[Any, Any]) -> tuple[Variable]:
        """Return ``(op(S) @ op(D),)`` for ``inputs = (sp_data, dense)``."""
        from kusari.functions.array.cast import cast

        if len(inputs) != 2:
            raise ValueError(
                f"CooMatMul.apply: expected (sp_data, dense), got {len(inputs)} inputs"
            )
        sp_data, dense = inputs
        if as_variable(sp_data).shape[-1:] != self.sp_row.shape[-1:]:
            raise type_check.InvalidType(
                "CooMatMul: sp_data has one value per (sp_row, sp_col) entry",
                f"sp_data {as_variable(sp_data).shape}, sp_row {self.sp_row.shape}",
            )
        y = _sparse_times(
            sp_data,
            self.sp_row,
            self.sp_col,
            self.sp_shape,
            dense,
            self.transa,
            self.transb,
        )
        if self.transc:
            y = _swap_last(y)
        if self.dtype is not None and y.dtype != numpy.dtype(self.dtype):
            y = cast(y, self.dtype)
        return (y,)
