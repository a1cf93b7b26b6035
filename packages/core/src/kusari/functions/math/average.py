"""``average`` (weighted or not) and its alias ``mean``."""

from __future__ import annotations

from typing import Any

from kusari.variable import Variable


def average(
    x: Any, axis: Any = None, weights: Any = None, keepdims: bool = False
) -> Variable:
    """Weighted average over the given axes.

    Args:
        x: Input variable.
        axis: None (all axes), an int, or a tuple of ints (a tuple is not
            allowed together with ``weights``).
        weights: None, or weights: of ``x``'s shape when ``axis`` is None,
            or 1-D of length ``x.shape[axis]`` when ``axis`` is an int.
        keepdims: Keep the reduced axes with length one.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.average(np.array([[1., 3.], [5., 7.]], np.float32), axis=1).array
        array([2., 6.], dtype=float32)
    """
    from kusari.functions.array.broadcast import broadcast_to
    from kusari.functions.array.reshape import reshape
    from kusari.functions.math.sum import _normalize_axis
    from kusari.functions.math.sum import sum as _sum
    from kusari.variable import as_variable

    x = as_variable(x)
    axes = _normalize_axis(axis, x.ndim, "average")
    if weights is None:
        if axes is None:
            n = x.size
        else:
            n = 1
            for a in axes:
                n *= x.shape[a]
        if n == 0:
            raise ValueError("average: there are no elements to average over")
        return _sum(x, axis, keepdims) * (1.0 / n)
    w = as_variable(weights)
    if w.dtype != x.dtype:
        raise TypeError(
            f"average: weights must have the dtype of x ({x.dtype}), got {w.dtype}"
        )
    if axes is None:
        if w.shape != x.shape:
            raise ValueError(
                f"average: weights must have the shape of x {x.shape} when axis is "
                f"None, "
                f"got {w.shape}"
            )
    elif isinstance(axis, tuple):
        raise ValueError("average: a tuple axis is not supported together with weights")
    else:
        a = axes[0]
        if w.ndim != 1 or w.shape[0] != x.shape[a]:
            raise ValueError(
                f"average: weights must be 1-D of length x.shape[{axis}] = "
                f"{x.shape[a]}, "
                f"got shape {w.shape}"
            )
        w = broadcast_to(
            reshape(w, tuple([d if i == a else 1 for i, d in enumerate(x.shape)])),
            x.shape,
        )
    return _sum(x * w, axis, keepdims) / _sum(w, axis, keepdims)


def mean(
    x: Any, axis: Any = None, weights: Any = None, keepdims: bool = False
) -> Variable:
    """Alias of :func:`average`.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> float(F.mean(np.array([1., 3.], np.float32)).array)
        2.0
    """
    return average(x, axis, weights, keepdims)
