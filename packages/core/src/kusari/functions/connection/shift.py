"""``shift``: zero-FLOP spatial shift of channel groups (Wu et al., 2017)."""

from __future__ import annotations

from typing import Any

from kusari.function_node import FunctionNode
from kusari.utils import type_check
from kusari.variable import Variable


def _pair(v: Any) -> tuple[int, int]:
    if isinstance(v, (tuple, list)):
        return int(v[0]), int(v[1])
    return int(v), int(v)


class ShiftFunction(FunctionNode):
    """Shift channel group ``i`` by kernel offset ``i`` (the centre group last)."""

    def __init__(self, ksize: Any = 3, dilate: Any = 1) -> None:
        self.kh, self.kw = _pair(ksize)
        if self.kh % 2 != 1 or self.kw % 2 != 1:
            raise ValueError(f"shift: ksize must be odd, got {ksize!r}")
        self.dy, self.dx = _pair(dilate)
        if self.dy == 0 or self.dx == 0:
            raise ValueError(f"shift: dilate must be non-zero, got {dilate!r}")

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        x = in_types[0]
        type_check.expect(
            x.dtype.kind == "f", x.ndim == 4, x.shape[1] >= self.kh * self.kw
        )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from kusari import backend

        (x,) = inputs
        xp = backend.get_array_module(x)
        _, c, h, w = x.shape
        n_groups = self.kh * self.kw
        gsize = c // n_groups
        centre = (n_groups - 1) // 2
        y = xp.zeros_like(x)
        for i in range(n_groups):
            g = i
            if g == centre:
                g = n_groups - 1
            elif g == n_groups - 1:
                g = centre
            sy = (g // self.kw - self.kh // 2) * self.dy
            sx = (g % self.kw - self.kw // 2) * self.dx
            cs = i * gsize
            ce = (i + 1) * gsize if i < n_groups - 1 else c
            # y[r, q] = x[r - sy, q - sx]
            ys, xs = (
                slice(max(0, sy), min(h, h + sy)),
                slice(max(0, sx), min(w, w + sx)),
            )
            yr, xr = (
                slice(max(0, -sy), min(h, h - sy)),
                slice(max(0, -sx), min(w, w - sx)),
            )
            if ys.start < ys.stop and xs.start < xs.stop:
                y[:, cs:ce, ys, xs] = x[:, cs:ce, yr, xr]
        return (y,)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        return ShiftFunction((self.kh, self.kw), (-self.dy, -self.dx)).apply(
            grad_outputs
        )


def shift(x: Any, ksize: Any = 3, dilate: Any = 1) -> Variable:
    """Shift function (a zero-FLOP alternative to spatial convolutions).

    The channels are split into ``k_H * k_W`` groups (the last takes the
    remainder); group ``i`` is shifted by kernel offset ``i`` (times
    ``dilate``) around the centre, with the centre offset assigned to the last
    group.  Vacated pixels are zero.

    Args:
        x: Input of shape ``(n, c, h, w)`` with ``c >= k_H * k_W``.
        ksize: Odd filter size ``k`` or ``(k_H, k_W)``.
        dilate: Shift step ``d`` or ``(d_Y, d_X)``.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.shift(np.ones((1, 9, 3, 3), np.float32)).array.sum()
        np.float32(49.0)
    """
    return ShiftFunction(ksize, dilate).apply((x,))[0]
