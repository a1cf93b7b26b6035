"""``tensordot``: contraction of two arrays over given axes."""

from __future__ import annotations

from typing import Any

import numpy

from kusari.utils.type_check import InvalidType
from kusari.variable import Variable, as_variable


class TensorDotShapeError(InvalidType, ValueError):
    """Contracted axes of different lengths.

    An ``InvalidType`` like kusari's other shape checks, and a ``ValueError``
    as Chainer v7's ``tensordot`` raised.
    """


def _axes_lists(axes: Any, a_ndim: int, b_ndim: int) -> tuple[list[int], list[int]]:
    if isinstance(axes, int):
        if axes < 0 or axes > a_ndim or axes > b_ndim:
            raise ValueError(
                f"tensordot: axes={axes} is invalid for inputs of ndim "
                f"{a_ndim} and {b_ndim}"
            )
        return list(range(a_ndim - axes, a_ndim)), list(range(axes))
    if isinstance(axes, (list, tuple)) and len(axes) != 2:
        # Chainer v7: a sequence that is not a pair is a ValueError.
        raise ValueError(
            f"tensordot: axes must be a pair of axis sequences, got {axes!r}"
        )
    try:
        aa, bb = axes
    except (TypeError, ValueError):
        raise TypeError(
            f"tensordot: axes must be an int or a pair of sequences, got {axes!r}"
        ) from None
    aa = [aa] if isinstance(aa, int) else list(aa)
    bb = [bb] if isinstance(bb, int) else list(bb)
    if len(aa) != len(bb):
        raise ValueError(f"tensordot: axes {axes!r} have different lengths")
    for lst, nd in ((aa, a_ndim), (bb, b_ndim)):
        for i, v in enumerate(lst):
            if not -nd <= v < nd:
                raise ValueError(f"tensordot: axis {v} is out of bounds for ndim {nd}")
            lst[i] = v % nd
    return aa, bb


def tensordot(a: Any, b: Any, axes: Any = 2) -> Variable:
    """Sum of products over the given axes of ``a`` and ``b`` (``numpy.tensordot``).

    Args:
        a: First input (float).
        b: Second input (float; its dtype may differ from ``a``'s: the
            result has NumPy's common dtype, each gradient its input's).
        axes: An int ``N`` (the last ``N`` axes of ``a`` with the first ``N`` of
            ``b``) or a pair of axis sequences.

    Raises:
        TensorDotShapeError: Contracted axes differ in length (an
            ``InvalidType`` and a ``ValueError``).
        ValueError: ``axes`` out of range, or a sequence that is not a pair.
        TypeError: ``axes`` is neither an int nor a pair of sequences.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> a, b = np.ones((2, 3, 4), np.float32), np.ones((3, 4, 5), np.float32)
        >>> F.tensordot(a, b).shape
        (2, 5)
    """
    from kusari.functions.array.cast import cast
    from kusari.functions.array.reshape import reshape
    from kusari.functions.array.transpose import transpose
    from kusari.functions.math.matmul import matmul
    from kusari.utils import type_check

    a = as_variable(a)
    b = as_variable(b)
    if a.dtype.kind != "f" or b.dtype.kind != "f":
        raise type_check.InvalidType(
            "tensordot: a.dtype.kind == 'f', b.dtype.kind == 'f'",
            f"{a.dtype}, {b.dtype}",
        )
    aa, bb = _axes_lists(axes, a.ndim, b.ndim)
    for i, j in zip(aa, bb, strict=False):
        if a.shape[i] != b.shape[j]:
            raise TensorDotShapeError(
                f"tensordot: a.shape[{i}] == b.shape[{j}]",
                f"{a.shape[i]} != {b.shape[j]}",
            )
    # Mixed float dtypes are accepted as in Chainer v7: the product has
    # NumPy's result dtype and each gradient comes back in its input's dtype
    # (through ``cast``'s backward).
    common = numpy.result_type(a.dtype, b.dtype)
    if a.dtype != common:
        a = cast(a, common)
    if b.dtype != common:
        b = cast(b, common)
    a_free = [i for i in range(a.ndim) if i not in aa]
    b_free = [i for i in range(b.ndim) if i not in bb]
    k = 1
    for i in aa:
        k *= a.shape[i]
    m = 1
    for i in a_free:
        m *= a.shape[i]
    n = 1
    for i in b_free:
        n *= b.shape[i]
    pa = tuple(a_free + aa)
    pb = tuple(bb + b_free)
    a2 = transpose(a, pa) if pa != tuple(range(a.ndim)) else a
    b2 = transpose(b, pb) if pb != tuple(range(b.ndim)) else b
    y = matmul(reshape(a2, (m, k)), reshape(b2, (k, n)))
    out_shape = tuple([a.shape[i] for i in a_free] + [b.shape[i] for i in b_free])
    return reshape(y, out_shape)
