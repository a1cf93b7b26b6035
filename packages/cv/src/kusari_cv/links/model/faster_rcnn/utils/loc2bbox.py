"""Apply Faster R-CNN's box offsets (the inverse of :func:`bbox2loc`)."""

from __future__ import annotations

import numpy

from kusari import backend
from kusari_cv._typing import Array


def loc2bbox(src_bbox: Array, loc: Array) -> Array:
    """Decode offsets ``loc`` relative to ``src_bbox`` into boxes.

    Args:
        src_bbox: ``(R, 4)`` boxes ``(y_min, x_min, y_max, x_max)``.
        loc: ``(R, 4 * L)`` offsets ``(t_y, t_x, t_h, t_w)`` repeated ``L``
            times (one set per class is allowed).

    Returns:
        ``(R, 4 * L)`` boxes.

    Example:
        >>> import numpy as np
        >>> src = np.array([[0, 0, 10, 10]], np.float32)
        >>> loc = np.array([[0.5, 0.5, 0, np.log(2)]], np.float32)
        >>> loc2bbox(src, loc)
        array([[ 5.,  0., 15., 20.]], dtype=float32)
    """
    xp = backend.get_array_module(src_bbox)
    if src_bbox.shape[0] == 0:
        return xp.zeros((0, loc.shape[1] if loc.ndim == 2 else 4), dtype=loc.dtype)
    if loc.shape[0] != src_bbox.shape[0] or loc.shape[1] % 4 != 0:
        raise ValueError(
            "loc2bbox: expected loc of shape (R, 4 * L) with R = "
            f"{src_bbox.shape[0]}, got {loc.shape}"
        )
    src_bbox = src_bbox.astype(loc.dtype, copy=False)
    src_height = (src_bbox[:, 2] - src_bbox[:, 0])[:, None]
    src_width = (src_bbox[:, 3] - src_bbox[:, 1])[:, None]
    src_ctr_y = src_bbox[:, 0:1] + 0.5 * src_height
    src_ctr_x = src_bbox[:, 1:2] + 0.5 * src_width

    ctr_y = loc[:, 0::4] * src_height + src_ctr_y
    ctr_x = loc[:, 1::4] * src_width + src_ctr_x
    # An untrained network can predict sizes beyond float range; those boxes
    # become infinite and callers clip them to the image.
    with numpy.errstate(over="ignore", invalid="ignore"):
        h = xp.exp(loc[:, 2::4]) * src_height
        w = xp.exp(loc[:, 3::4]) * src_width

    dst_bbox = xp.empty_like(loc)
    dst_bbox[:, 0::4] = ctr_y - 0.5 * h
    dst_bbox[:, 1::4] = ctr_x - 0.5 * w
    dst_bbox[:, 2::4] = ctr_y + 0.5 * h
    dst_bbox[:, 3::4] = ctr_x + 0.5 * w
    return dst_bbox
