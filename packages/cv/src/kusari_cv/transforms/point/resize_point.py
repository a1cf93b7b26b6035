"""Scale points with their image."""

from __future__ import annotations

from typing import Any

import numpy as np

from kusari_cv.transforms.point._apply import apply


def resize_point(
    point: Any, in_size: tuple[int, int], out_size: tuple[int, int]
) -> Any:
    """Scale ``(y, x)`` points from an image of ``in_size`` to ``out_size``.

    Args:
        point: An ``(R, K, 2)`` array or a list of ``(K, 2)`` arrays.
        in_size: ``(H, W)`` before resizing.
        out_size: ``(H, W)`` after resizing.

    Returns:
        New points of the same kind.
    """
    y_scale = float(out_size[0]) / in_size[0]
    x_scale = float(out_size[1]) / in_size[1]

    def f(p: np.ndarray) -> None:
        p[..., 0] *= y_scale
        p[..., 1] *= x_scale

    return apply("resize_point", point, f)
