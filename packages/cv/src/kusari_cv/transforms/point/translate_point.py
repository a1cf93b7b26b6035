"""Shift points with their image."""

from __future__ import annotations

from typing import Any

import numpy as np

from kusari_cv.transforms.point._apply import apply


def translate_point(point: Any, y_offset: float = 0, x_offset: float = 0) -> Any:
    """Shift ``(y, x)`` points (an ``(R, K, 2)`` array or a list of ``(K, 2)``
    arrays) by ``(y_offset, x_offset)``; returns new points."""

    def f(p: np.ndarray) -> None:
        p[..., 0] += y_offset
        p[..., 1] += x_offset

    return apply("translate_point", point, f)
