"""Flip boxes with their image."""

from __future__ import annotations

from kusari_cv._typing import Array
from kusari_cv.utils.bbox._check import check_bbox


def flip_bbox(
    bbox: Array, size: tuple[int, int], y_flip: bool = False, x_flip: bool = False
) -> Array:
    """Move ``(R, 4)`` boxes as :func:`flip` moves an image of ``size = (H, W)``.

    Returns a new array.
    """
    check_bbox("flip_bbox", bbox)
    h, w = size
    out = bbox.copy()
    if y_flip:
        out[:, 0] = h - bbox[:, 2]
        out[:, 2] = h - bbox[:, 0]
    if x_flip:
        out[:, 1] = w - bbox[:, 3]
        out[:, 3] = w - bbox[:, 1]
    return out
