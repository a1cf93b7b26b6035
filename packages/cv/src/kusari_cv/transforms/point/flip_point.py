"""Flip points with their image."""

from __future__ import annotations

from typing import Any

import numpy as np

from kusari_cv.transforms.point._apply import apply


def flip_point(
    point: Any, size: tuple[int, int], y_flip: bool = False, x_flip: bool = False
) -> Any:
    """Move ``(y, x)`` points as :func:`flip` moves an image of ``size``.

    Args:
        point: An ``(R, K, 2)`` array or a list of ``(K, 2)`` arrays.
        size: The image's ``(H, W)``.
        y_flip: The image was flipped vertically.
        x_flip: The image was flipped horizontally.

    Returns:
        New points of the same kind.
    """
    h, w = size

    def f(p: np.ndarray) -> None:
        if y_flip:
            p[..., 0] = h - p[..., 0]
        if x_flip:
            p[..., 1] = w - p[..., 1]

    return apply("flip_point", point, f)
