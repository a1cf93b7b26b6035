"""Shift boxes with their image."""

from __future__ import annotations

from kusari_cv._typing import Array
from kusari_cv.utils.bbox._check import check_bbox


def translate_bbox(bbox: Array, y_offset: float = 0, x_offset: float = 0) -> Array:
    """Shift ``(R, 4)`` boxes by ``(y_offset, x_offset)``; returns a new array."""
    check_bbox("translate_bbox", bbox)
    out = bbox.copy()
    out[:, 0::2] += y_offset
    out[:, 1::2] += x_offset
    return out
