"""``moveaxis``: move axes to new positions (a view)."""

from __future__ import annotations

from typing import Any

from kusari.functions.array._permute import Permute
from kusari.utils import type_check
from kusari.variable import Variable


def _as_axes(a: Any, name: str) -> tuple[int, ...]:
    if isinstance(a, int) and not isinstance(a, bool):
        return (a,)
    if isinstance(a, (tuple, list)) and all(
        isinstance(v, int) and not isinstance(v, bool) for v in a
    ):
        return tuple(a)
    raise TypeError(f"moveaxis: {name} must be an int or a tuple of ints, got {a!r}")


class Moveaxis(Permute):
    """Move ``source`` axes to ``destination`` positions."""

    def __init__(self, source: Any, destination: Any) -> None:
        self.source = _as_axes(source, "source")
        self.destination = _as_axes(destination, "destination")
        if len(self.source) != len(self.destination):
            raise ValueError(
                "moveaxis: source and destination must have the same "
                f"number of elements, got {self.source} and "
                f"{self.destination}"
            )

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        x = in_types[0]
        for a in self.source + self.destination:
            type_check.expect(-x.ndim <= a, a < x.ndim)
        ndim = type_check.eval(x.ndim)
        for name, axes in (("source", self.source), ("destination", self.destination)):
            if len({a % ndim for a in axes}) != len(axes):
                raise ValueError(f"moveaxis: repeated axis in {name}: {axes}")

    def perm(self, ndim: int) -> tuple[int, ...]:
        src = [a % ndim for a in self.source]
        dst = [a % ndim for a in self.destination]
        order = [i for i in range(ndim) if i not in src]
        for d, s in sorted(zip(dst, src, strict=False)):
            order.insert(d, s)
        return tuple(order)


def moveaxis(x: Any, source: Any, destination: Any) -> Variable:
    """Move axes of ``x``; the other axes keep their order.

    Args:
        x: Input variable.
        source: An int or tuple of ints: the axes to move.
        destination: Their new positions (same number of elements).

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.moveaxis(np.zeros((2, 3, 4), np.float32), 0, -1).shape
        (3, 4, 2)
    """
    return Moveaxis(source, destination).apply((x,))[0]
