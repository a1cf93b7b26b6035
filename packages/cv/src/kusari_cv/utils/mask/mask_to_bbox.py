"""Tight bounding boxes around masks."""

from __future__ import annotations

import numpy as np

import kusari
from kusari_cv._typing import Array
from kusari_cv.utils.mask._check import check_mask


def mask_to_bbox(mask: Array) -> Array:
    """Bounding boxes around the ``True`` pixels of each mask.

    Args:
        mask: Boolean masks of shape ``(R, H, W)``.

    Returns:
        A float32 array of shape ``(R, 4)``, ``(y_min, x_min, y_max, x_max)``
        with exclusive maxima. An empty mask gives ``(0, 0, 0, 0)``.

    Example:
        >>> import numpy as np
        >>> m = np.zeros((1, 4, 5), dtype=bool); m[0, 1:3, 2:5] = True
        >>> mask_to_bbox(m).tolist()
        [[1.0, 2.0, 3.0, 5.0]]
    """
    check_mask("mask_to_bbox", mask)
    xp = kusari.backend.get_array_module(mask)
    _, h, w = mask.shape
    rows = mask.any(axis=2)  # (R, H)
    cols = mask.any(axis=1)  # (R, W)
    nonempty = rows.any(axis=1)
    # argmax finds the first True; on the reversed axis it finds the last.
    y_min = rows.argmax(axis=1)
    y_max = h - rows[:, ::-1].argmax(axis=1)
    x_min = cols.argmax(axis=1)
    x_max = w - cols[:, ::-1].argmax(axis=1)
    bbox = xp.stack((y_min, x_min, y_max, x_max), axis=1).astype(np.float32)
    bbox[~nonempty] = 0
    return bbox
