"""Sparse matrices in COO format: ``CooMatrix`` and ``to_coo``."""

from __future__ import annotations

from typing import Any

import numpy

from kusari import backend


class CooMatrix:
    """A sparse matrix (or a batch of them) in coordinate format.

    Args:
        data: Non-zero values (an array or a Variable), shape ``(nnz,)``,
            or ``(B, nnz)`` for a batch.
        row: Row indices, same shape as ``data`` (``-1`` marks padding).
        col: Column indices, same shape as ``data`` (``-1`` marks padding).
        shape: The ``(rows, cols)`` shape of each matrix.
        order: ``'C'`` (sorted by row), ``'F'`` (sorted by column) or None.
        requires_grad: Whether ``data`` (a Variable) requires a gradient.

    Example:
        >>> import numpy as np
        >>> from kusari.utils.sparse import CooMatrix
        >>> m = CooMatrix(np.array([1., 2.], np.float32), np.array([0, 1]),
        ...               np.array([1, 0]), (2, 2))
        >>> m.to_dense()
        array([[0., 1.],
               [2., 0.]], dtype=float32)
    """

    def __init__(
        self,
        data: Any,
        row: Any,
        col: Any,
        shape: Any,
        order: str | None = None,
        requires_grad: bool = False,
    ) -> None:
        from kusari.variable import Variable

        if not 1 <= data.ndim <= 2:
            raise ValueError(
                f"CooMatrix: data must be 1-D or 2-D, got ndim {data.ndim}"
            )
        if not data.shape == row.shape == col.shape:
            raise ValueError(
                f"CooMatrix: data, row and col must have the same shape, got "
                f"{data.shape}, {row.shape}, {col.shape}"
            )
        if len(shape) != 2:
            raise ValueError(f"CooMatrix: shape must have length 2, got {shape!r}")
        if not (shape[0] > 0 and shape[1] > 0):
            raise ValueError(f"CooMatrix: shape must be positive, got {shape!r}")
        if order not in ("C", "F", None):
            raise ValueError(
                f"CooMatrix: order must be 'C', 'F' or None, got {order!r}"
            )
        # A Variable is kept as it is (its graph and requires_grad included).
        self.data = (
            data
            if isinstance(data, Variable)
            else Variable(data, requires_grad=requires_grad)
        )
        self.row = row
        self.col = col
        self.shape = tuple(shape)
        self.order = order

    def to_dense(self) -> Any:
        """The dense array (``shape``, or ``(B,) + shape`` for a batch)."""
        data = self.data.array
        xp = backend.get_array_module(data)
        valid = (self.row >= 0) & (self.col >= 0)
        if data.ndim == 1:
            x = xp.zeros(self.shape, dtype=data.dtype)
            idx: tuple[Any, ...] = (self.row[valid], self.col[valid])
        else:
            x = xp.zeros((data.shape[0],) + self.shape, dtype=data.dtype)
            b = xp.broadcast_to(xp.arange(data.shape[0])[:, None], data.shape)
            idx = (b[valid], self.row[valid], self.col[valid])
        xp.add.at(x, idx, data[valid])
        return x


def to_coo(x: Any, ldnz: int | None = None, requires_grad: bool = False) -> CooMatrix:
    """Convert a dense 2-D (or batched 3-D) array to a :class:`CooMatrix`.

    Args:
        x: A dense array ``(M, N)`` or ``(B, M, N)``.
        ldnz: For a batch, the padded number of entries per matrix (at least
            the largest count of non-zeros; default exactly that).
        requires_grad: Whether the ``data`` Variable requires a gradient.

    Example:
        >>> import numpy as np
        >>> from kusari.utils.sparse import to_coo
        >>> m = to_coo(np.array([[0., 1.], [2., 0.]], np.float32))
        >>> m.data.array
        array([1., 2.], dtype=float32)
        >>> m.row, m.col
        (array([0, 1], dtype=int32), array([1, 0], dtype=int32))
    """
    from kusari.variable import Variable

    if isinstance(x, Variable):
        x = x.array
    xp = backend.get_array_module(x)
    if x.ndim == 2:
        r, c = xp.nonzero(x)
        n = len(r)
        if ldnz is None or ldnz == n:
            data, row, col = x[r, c], r.astype(numpy.int32), c.astype(numpy.int32)
        else:
            _check_ldnz(ldnz, n)
            # Padding entries: value 0 at index -1, as in a batch.
            data = xp.zeros(ldnz, dtype=x.dtype)
            row = xp.full(ldnz, -1, dtype=numpy.int32)
            col = xp.full(ldnz, -1, dtype=numpy.int32)
            data[:n] = x[r, c]
            row[:n] = r
            col[:n] = c
        return CooMatrix(
            data, row, col, x.shape, order="C", requires_grad=requires_grad
        )
    if x.ndim != 3:
        raise ValueError(f"to_coo: x must be 2-D or 3-D, got ndim {x.ndim}")
    nnz = (x != 0).reshape(len(x), -1).sum(axis=1)
    most = int(nnz.max()) if len(x) else 0
    if ldnz is None:
        ldnz = most
    _check_ldnz(ldnz, most)
    data = xp.zeros((len(x), ldnz), dtype=x.dtype)
    row = xp.full((len(x), ldnz), -1, dtype=numpy.int32)
    col = xp.full((len(x), ldnz), -1, dtype=numpy.int32)
    for i in range(len(x)):
        r, c = xp.nonzero(x[i])
        n = len(r)
        data[i, :n] = x[i][r, c]
        row[i, :n] = r
        col[i, :n] = c
    return CooMatrix(
        data, row, col, x.shape[1:], order="C", requires_grad=requires_grad
    )


def _check_ldnz(ldnz: int, nnz: int) -> None:
    if ldnz < nnz:
        raise ValueError(
            f"to_coo: ldnz ({ldnz}) is smaller than the number of non-zeros ({nnz})"
        )


def get_order(row: Any, col: Any) -> str:
    """Whether COO indices are in C order (by row) or F order (by column).

    Padding entries (index ``-1`` in both ``row`` and ``col``) are ignored;
    a batch (2-D ``row``/``col``) has an order only if every matrix has it.

    Args:
        row: Row indices of the entries, ``(nnz,)`` or ``(B, nnz)``.
        col: Column indices, the same shape as ``row``.

    Returns:
        ``'C'`` if the entries are sorted by row (then by column within a
        row), else ``'F'`` if sorted by column (then by row), else
        ``'other'``.

    Raises:
        ValueError: ``row`` and ``col`` differ in shape, or an entry has a
            negative index on one side only.

    Example:
        >>> import numpy as np
        >>> from kusari.utils import get_order
        >>> get_order(np.array([0, 0, 1]), np.array([0, 2, 1]))
        'C'
        >>> get_order(np.array([1, 0, 0]), np.array([0, 1, 2]))
        'F'
    """
    if _sorted_by(row, col):
        return "C"
    if _sorted_by(col, row):
        return "F"
    return "other"


def _sorted_by(major: Any, minor: Any) -> bool:
    """Whether the entries are sorted by ``major``, then by ``minor``."""
    if major.shape != minor.shape:
        raise ValueError(
            "get_order: row and col must have the same shape, "
            f"got {major.shape} and {minor.shape}"
        )
    if major.ndim > 1:
        return all(_sorted_by(a, b) for a, b in zip(major, minor, strict=True))
    xp = backend.get_array_module(major)
    pad_major = major < 0
    if bool(xp.any(pad_major != (minor < 0))):
        raise ValueError(
            "get_order: an entry has a negative (padding) index in only one "
            "of row and col"
        )
    keep = ~pad_major
    a = major[keep].astype(numpy.int64)
    b = minor[keep].astype(numpy.int64)
    if a.size <= 1:
        return True
    da = a[1:] - a[:-1]
    if bool(xp.any(da < 0)):
        return False
    # Within one row (major index unchanged) the minor index must not fall.
    db = b[1:] - b[:-1]
    return not bool(xp.any((da == 0) & (db < 0)))
