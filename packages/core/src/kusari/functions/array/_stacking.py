"""Shared code of ``hstack``, ``vstack`` and ``dstack``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kusari.utils import type_check
from kusari.variable import Variable


def stack_along(
    xs: Any,
    name: str,
    min_ndim: int,
    lift: Callable[[tuple[int, ...]], tuple[int, ...]],
    axis: Callable[[int], int],
) -> Variable:
    """Lift each input to ``min_ndim`` axes (views) and concatenate them."""
    from kusari.functions.array.concat import concat
    from kusari.functions.array.reshape import reshape

    xs = list(xs)
    if not xs:
        raise type_check.InvalidType(
            "in_types.size() > 0",
            "in_types.size() == 0",
            msg=f"\nInvalid operation is performed in: {name} (Forward)\n\n"
            "Expect: in_types.size() > 0\nActual: 0 <= 0",
        )
    # v7 compares the inputs' own ndim, before lifting: () and (1,) both
    # lift to the same rank, yet they are refused there.
    ndims = {x.ndim for x in xs}
    if len(ndims) != 1:
        shapes = ", ".join(str(x.shape) for x in xs)
        raise type_check.InvalidType(
            "all inputs have the same number of dimensions",
            shapes,
            msg=f"\nInvalid operation is performed in: {name} (Forward)\n\n"
            f"Expect: all inputs have the same ndim\nActual: shapes {shapes}",
        )
    lifted = [x if x.ndim >= min_ndim else reshape(x, lift(x.shape)) for x in xs]
    return concat(lifted, axis(lifted[0].ndim))
