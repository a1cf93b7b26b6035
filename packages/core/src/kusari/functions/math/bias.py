"""``bias``: add a lower-rank array to ``x`` broadcast from ``axis``."""

from __future__ import annotations

from typing import Any

from kusari.utils._type_check_expr import InvalidType
from kusari.variable import Variable, as_variable


class AxisShapeError(InvalidType, AssertionError):
    """``y``'s shape does not fit ``x`` from ``axis`` in :func:`bias` or
    :func:`~kusari.functions.scale`.

    An :class:`~kusari.utils.type_check.InvalidType`, and also an
    ``AssertionError`` because Chainer checked this shape with ``assert`` in
    debug mode and code written for it catches that.
    """


def _broadcast_from_axis(x: Variable, y: Variable, axis: int, fname: str) -> Variable:
    from kusari.functions.array.broadcast import broadcast_to
    from kusari.functions.array.reshape import reshape
    from kusari.utils import type_check

    if x.dtype != y.dtype:
        raise type_check.InvalidType(
            f"{fname}: x.dtype == y.dtype", f"{x.dtype} != {y.dtype}"
        )
    if axis < 0:
        axis += x.ndim
    if not (
        0 <= axis
        and axis + y.ndim <= x.ndim
        and x.shape[axis : axis + y.ndim] == y.shape
    ):
        raise AxisShapeError(
            f"{fname}: x.shape[axis:axis + y.ndim] == y.shape",
            f"x.shape={x.shape}, y.shape={y.shape}, axis={axis}",
        )
    shape = (1,) * axis + y.shape + (1,) * (x.ndim - axis - y.ndim)
    return broadcast_to(reshape(y, shape), x.shape)


def bias(x: Any, y: Any, axis: int = 1) -> Variable:
    """Elementwise ``x + y`` with ``y`` broadcast along ``x``'s axes from ``axis``.

    ``y.shape`` must equal ``x.shape[axis:axis + y.ndim]``.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> x = np.zeros((2, 3), np.float32)
        >>> F.bias(x, np.arange(3, dtype=np.float32)).array
        array([[0., 1., 2.],
               [0., 1., 2.]], dtype=float32)
    """
    x = as_variable(x)
    return x + _broadcast_from_axis(x, as_variable(y), axis, "bias")
