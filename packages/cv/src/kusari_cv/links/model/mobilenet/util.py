"""Channel rounding rules of TensorFlow's MobileNet implementation."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def _make_divisible(v: float, divisor: int, min_value: int | None = None) -> int:
    """Round ``v`` to the nearest multiple of ``divisor`` (at least
    ``min_value``), never more than 10% below ``v``.

    The pretrained weights were made with this rule, so the channel counts
    it gives must match theirs exactly.
    """
    if min_value is None:
        min_value = divisor
    rounded = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if rounded < 0.9 * v:
        rounded += divisor
    return rounded


def expand_input_by_factor(n: float, divisible_by: int = 8) -> Callable[..., int]:
    """A rule for :class:`ExpandedConv2D`'s ``expansion_size``: ``n`` times
    the input channels, rounded by :func:`_make_divisible`.

    Example:
        >>> expand_input_by_factor(6)(num_inputs=24)
        144
    """

    def expansion_size(num_inputs: int, **_: Any) -> int:
        return _make_divisible(num_inputs * n, divisible_by)

    return expansion_size
