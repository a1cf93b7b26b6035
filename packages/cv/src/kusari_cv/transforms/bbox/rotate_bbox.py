"""Rotate boxes with their image."""

from __future__ import annotations

import numpy as np

from kusari_cv._typing import Array
from kusari_cv.utils.bbox._check import check_bbox


def rotate_bbox(bbox: Array, angle: float, size: tuple[int, int]) -> Array:
    """Move ``(R, 4)`` boxes as :func:`rotate` moves an image of ``size``.

    Only multiples of 90 degrees are supported (an axis-aligned box rotated
    by another angle is no longer a box).

    Args:
        bbox: The boxes.
        angle: Degrees, counter-clockwise; a multiple of 90.
        size: The ``(H, W)`` of the image before rotation.

    Returns:
        The rotated boxes (a new array of the input's dtype).
    """
    check_bbox("rotate_bbox", bbox)
    if angle % 90 != 0:
        raise ValueError(f"rotate_bbox: angle must be a multiple of 90, got {angle}")
    h, w = size
    k = int(angle // 90) % 4
    y0, x0, y1, x1 = bbox[:, 0], bbox[:, 1], bbox[:, 2], bbox[:, 3]
    if k == 0:
        out = (y0, x0, y1, x1)
    elif k == 1:  # (y, x) -> (W - x, y)
        out = (w - x1, y0, w - x0, y1)
    elif k == 2:  # (y, x) -> (H - y, W - x)
        out = (h - y1, w - x1, h - y0, w - x0)
    else:  # (y, x) -> (x, H - y)
        out = (x0, h - y1, x1, h - y0)
    return np.stack(out, axis=1).astype(bbox.dtype, copy=False)
