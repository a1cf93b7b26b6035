"""Move boxes into a cropped image's frame and clip them to it."""

from __future__ import annotations

from typing import Any

import numpy as np

from kusari_cv._typing import Array
from kusari_cv.utils.bbox._check import check_bbox


def _bounds(s: slice | None) -> tuple[float, float]:
    if s is None:
        return 0, np.inf
    return (0 if s.start is None else s.start), (np.inf if s.stop is None else s.stop)


def crop_bbox(
    bbox: Array,
    y_slice: slice | None = None,
    x_slice: slice | None = None,
    allow_outside_center: bool = True,
    return_param: bool = False,
) -> Any:
    """Translate boxes to a crop ``img[:, y_slice, x_slice]`` and clip them.

    Boxes that end up empty are removed; so are boxes whose center lies
    outside the crop when ``allow_outside_center`` is False.

    Args:
        bbox: ``(R, 4)`` boxes.
        y_slice: The crop's rows (None: all).
        x_slice: The crop's columns (None: all).
        allow_outside_center: Keep boxes whose center is outside the crop.
        return_param: Also return ``{'index': kept indices}``.

    Returns:
        The kept boxes, or ``(boxes, param)``.
    """
    check_bbox("crop_bbox", bbox)
    top, bottom = _bounds(y_slice)
    left, right = _bounds(x_slice)
    lo = np.array((top, left))
    hi = np.array((bottom, right))
    if allow_outside_center:
        keep = np.ones(len(bbox), dtype=bool)
    else:
        center = (bbox[:, :2] + bbox[:, 2:]) / 2
        keep = ((lo <= center) & (center < hi)).all(axis=1)
    out = bbox.copy()
    out[:, :2] = np.maximum(bbox[:, :2], lo) - lo
    out[:, 2:] = np.minimum(bbox[:, 2:], hi) - lo
    keep &= (out[:, :2] < out[:, 2:]).all(axis=1)
    out = out[keep]
    if return_param:
        return out, {"index": np.flatnonzero(keep)}
    return out
