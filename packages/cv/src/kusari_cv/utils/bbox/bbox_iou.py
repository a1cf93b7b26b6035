"""Intersection over union of two sets of boxes."""

from __future__ import annotations

import numpy as np

import kusari
from kusari_cv._typing import Array
from kusari_cv.utils.bbox._check import check_bbox


def bbox_iou(bbox_a: Array, bbox_b: Array) -> Array:
    """Intersection over union of every pair of boxes from two sets.

    Boxes are ``(y_min, x_min, y_max, x_max)``; a box's area is
    ``(y_max - y_min) * (x_max - x_min)`` (no ``+ 1``). Pairs of empty boxes
    (zero union) give ``nan``, as in ChainerCV.

    Args:
        bbox_a: An array of shape ``(N, 4)`` (NumPy or CuPy).
        bbox_b: An array of shape ``(K, 4)``, on the same device.

    Returns:
        An array of shape ``(N, K)``: element ``(n, k)`` is the IoU of
        ``bbox_a[n]`` and ``bbox_b[k]``.

    Example:
        >>> import numpy as np
        >>> a = np.array([[0.0, 0.0, 2.0, 2.0]])
        >>> b = np.array([[1.0, 1.0, 3.0, 3.0], [0.0, 0.0, 2.0, 2.0]])
        >>> bbox_iou(a, b).round(4).tolist()
        [[0.1429, 1.0]]
    """
    check_bbox("bbox_iou", bbox_a, "bbox_a")
    check_bbox("bbox_iou", bbox_b, "bbox_b")
    xp = kusari.backend.get_array_module(bbox_a)
    if bbox_a.dtype.kind != "f" or bbox_b.dtype.kind != "f":
        dtype = np.result_type(bbox_a.dtype, bbox_b.dtype, np.float64)
        bbox_a, bbox_b = bbox_a.astype(dtype), bbox_b.astype(dtype)
    # One coordinate at a time: four (N, K) temporaries instead of the
    # (N, K, 2) corner arrays, which keeps large inputs in cache.
    a = bbox_a.T[:, :, None]
    b = bbox_b.T[:, None, :]
    h = xp.minimum(a[2], b[2])
    h -= xp.maximum(a[0], b[0])
    xp.maximum(h, 0, out=h)
    w = xp.minimum(a[3], b[3])
    w -= xp.maximum(a[1], b[1])
    xp.maximum(w, 0, out=w)
    inter = h
    inter *= w
    area_a = (bbox_a[:, 2] - bbox_a[:, 0]) * (bbox_a[:, 3] - bbox_a[:, 1])
    area_b = (bbox_b[:, 2] - bbox_b[:, 0]) * (bbox_b[:, 3] - bbox_b[:, 1])
    union = area_a[:, None] + area_b[None, :]
    union -= inter
    with np.errstate(divide="ignore", invalid="ignore"):
        inter /= union
    return inter
