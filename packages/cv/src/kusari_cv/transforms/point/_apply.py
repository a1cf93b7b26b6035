"""Apply a per-array point transform to an array or a list of arrays."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np


def apply(function: str, point: Any, f: Callable[[np.ndarray], None]) -> Any:
    """Copy ``point`` (``(R, K, 2)`` array or list of ``(K, 2)``) and run
    ``f`` on each copy's ``(..., 2)`` array in place."""
    if isinstance(point, np.ndarray):
        if point.ndim != 3 or point.shape[2] != 2:
            raise ValueError(
                f"{function}: point must have shape (R, K, 2) or be a list of "
                f"(K, 2) arrays, got {point.shape}"
            )
        out = point.copy()
        f(out)
        return out
    outs = []
    for p in point:
        p = np.array(p, copy=True)
        if p.ndim != 2 or p.shape[1] != 2:
            raise ValueError(
                f"{function}: each array of point must have shape (K, 2), got {p.shape}"
            )
        f(p)
        outs.append(p)
    return outs
