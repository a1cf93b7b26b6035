"""Scale boxes with their image."""

from __future__ import annotations

from kusari_cv._typing import Array
from kusari_cv.utils.bbox._check import check_bbox


def resize_bbox(
    bbox: Array, in_size: tuple[int, int], out_size: tuple[int, int]
) -> Array:
    """Scale ``(R, 4)`` boxes from an image of ``in_size`` to one of ``out_size``.

    Both sizes are ``(H, W)``. Returns a new array.
    """
    check_bbox("resize_bbox", bbox)
    y_scale = float(out_size[0]) / in_size[0]
    x_scale = float(out_size[1]) / in_size[1]
    out = bbox.copy()
    out[:, 0::2] = y_scale * bbox[:, 0::2]
    out[:, 1::2] = x_scale * bbox[:, 1::2]
    return out
