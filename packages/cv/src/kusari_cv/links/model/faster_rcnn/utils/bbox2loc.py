"""Offsets that move one set of boxes onto another (Faster R-CNN's encoding)."""

from __future__ import annotations

import numpy

from kusari import backend
from kusari_cv._typing import Array


def bbox2loc(src_bbox: Array, dst_bbox: Array) -> Array:
    """Encode ``dst_bbox`` relative to ``src_bbox``.

    With centers ``(y, x)`` and sizes ``(h, w)`` of source and destination
    boxes, the offsets are ``t_y = (y' - y) / h``, ``t_x = (x' - x) / w``,
    ``t_h = log(h' / h)`` and ``t_w = log(w' / w)``.

    Args:
        src_bbox: ``(R, 4)`` source boxes ``(y_min, x_min, y_max, x_max)``.
        dst_bbox: ``(R, 4)`` destination boxes.

    Returns:
        ``(R, 4)`` offsets ``(t_y, t_x, t_h, t_w)``.

    Example:
        >>> import numpy as np
        >>> src = np.array([[0, 0, 10, 10]], np.float32)
        >>> dst = np.array([[5, 0, 15, 20]], np.float32)
        >>> np.round(bbox2loc(src, dst), 4)
        array([[0.5   , 0.5   , 0.    , 0.6931]], dtype=float32)
    """
    if src_bbox.shape != dst_bbox.shape:
        raise ValueError(
            "bbox2loc: src_bbox and dst_bbox must have the same (R, 4) shape, "
            f"got {src_bbox.shape} and {dst_bbox.shape}"
        )
    xp = backend.get_array_module(src_bbox)
    height = src_bbox[:, 2] - src_bbox[:, 0]
    width = src_bbox[:, 3] - src_bbox[:, 1]
    ctr_y = src_bbox[:, 0] + 0.5 * height
    ctr_x = src_bbox[:, 1] + 0.5 * width

    base_height = dst_bbox[:, 2] - dst_bbox[:, 0]
    base_width = dst_bbox[:, 3] - dst_bbox[:, 1]
    base_ctr_y = dst_bbox[:, 0] + 0.5 * base_height
    base_ctr_x = dst_bbox[:, 1] + 0.5 * base_width

    # degenerate source boxes would divide by zero
    eps = xp.finfo(height.dtype).eps
    height = xp.maximum(height, eps)
    width = xp.maximum(width, eps)

    dy = (base_ctr_y - ctr_y) / height
    dx = (base_ctr_x - ctr_x) / width
    dh = xp.log(base_height / height)
    dw = xp.log(base_width / width)
    return xp.stack((dy, dx, dh, dw), axis=1).astype(
        numpy.result_type(src_bbox.dtype, numpy.float32), copy=False
    )
