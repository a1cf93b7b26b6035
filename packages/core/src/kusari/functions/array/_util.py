"""Private helpers shared by the array functions (axis checks, scatter-adds)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy

from kusari.utils import type_check


def check_axis(axis: Any, ndim: int, fname: str, extra: int = 0) -> int:
    """Normalise one axis for an array of ``ndim`` (+ ``extra``) axes.

    Raises InvalidType (with the function's name) when it is out of bounds.
    """
    if not isinstance(axis, (int, numpy.integer)) or isinstance(axis, bool):
        raise TypeError(f"{fname}: axis must be an int, got {type(axis).__name__}")
    n = ndim + extra
    if not -n <= axis < n:
        raise type_check.InvalidType(
            f"-{n} <= axis < {n} (axis of {fname})",
            f"axis={axis}, in_types[0].ndim == {ndim}",
        )
    return int(axis) % n


def inverse_permutation(perm: Sequence[int]) -> tuple[int, ...]:
    inv = [0] * len(perm)
    for i, p in enumerate(perm):
        inv[p] = i
    return tuple(inv)


def scatter_add_flat(xp: Any, index: Any, values: Any, size: int, dtype: Any) -> Any:
    """``out[index[k]] += values[k]`` on a flat zero array of ``size`` elements.

    Uses ``bincount`` (one vectorised pass on NumPy and CuPy); the sum is
    accumulated in float64 and cast back to ``dtype``.
    """
    index = index.ravel()
    if index.size == 0:
        return xp.zeros(size, dtype=dtype)
    out = xp.bincount(
        index, weights=values.ravel().astype(numpy.float64, copy=False), minlength=size
    )
    return out.astype(dtype, copy=False)


def index_add(xp: Any, target: Any, slices: Any, values: Any) -> None:
    """In-place ``target[slices] += values`` that accumulates repeated indices."""
    # CuPy 14 spells its atomic scatter-add the NumPy way (``cupyx.scatter_add``
    # is deprecated there).
    xp.add.at(target, slices, values)
