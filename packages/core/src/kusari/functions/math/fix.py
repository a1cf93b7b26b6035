"""``fix``: elementwise rounding toward zero (not differentiable)."""

from __future__ import annotations

from typing import Any

from kusari import backend
from kusari.utils import force_array
from kusari.variable import Variable


def fix(x: Any) -> Variable:
    """Elementwise rounding toward zero.

    The result is a new Variable without a graph (the function is piecewise
    constant, so it has no useful gradient), in the dtype of ``x``.

    Args:
        x: Input variable or array.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.fix(np.array([1.5], np.float32)).array
        array([1.], dtype=float32)
    """
    if isinstance(x, Variable):
        x = x.array
    xp = backend.get_array_module(x)
    if not hasattr(x, "dtype"):
        raise TypeError(
            f"fix: expected a Variable or an ndarray, got {type(x).__name__}"
        )
    return Variable(force_array(xp.trunc(x), x.dtype), requires_grad=False)
