"""Argument normalisation shared by the convolution and pooling families."""

from __future__ import annotations

from typing import Any

import numpy


def as_tuple(value: Any, n: int, fname: str, argname: str) -> tuple[int, ...]:
    """``value`` as a tuple of ``n`` ints (an int is repeated)."""
    if isinstance(value, (int, numpy.integer)):
        return (int(value),) * n
    try:
        t = tuple(int(v) for v in value)
    except TypeError:
        raise TypeError(
            f"{fname}: {argname} must be an int or a tuple of {n} ints, got {value!r}"
        ) from None
    if len(t) != n:
        raise ValueError(f"{fname}: {argname} must have {n} elements, got {value!r}")
    return t
