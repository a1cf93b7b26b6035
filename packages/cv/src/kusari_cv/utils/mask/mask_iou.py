"""Intersection over union of two sets of masks."""

from __future__ import annotations

import numpy as np

import kusari
from kusari_cv._typing import Array
from kusari_cv.utils.mask._check import check_mask


def mask_iou(mask_a: Array, mask_b: Array) -> Array:
    """Intersection over union of every pair of masks from two sets.

    Args:
        mask_a: Boolean masks of shape ``(N, H, W)``.
        mask_b: Boolean masks of shape ``(K, H, W)``.

    Returns:
        A float32 array of shape ``(N, K)``. A pair of two empty masks gives
        ``nan``.

    Example:
        >>> import numpy as np
        >>> a = np.zeros((1, 2, 2), dtype=bool); a[0, 0] = True
        >>> b = np.ones((1, 2, 2), dtype=bool)
        >>> mask_iou(a, b).tolist()
        [[0.5]]
    """
    check_mask("mask_iou", mask_a, "mask_a")
    check_mask("mask_iou", mask_b, "mask_b")
    if mask_a.shape[1:] != mask_b.shape[1:]:
        raise ValueError(
            "mask_iou: mask_a and mask_b must have the same (H, W), got "
            f"{mask_a.shape[1:]} and {mask_b.shape[1:]}"
        )
    xp = kusari.backend.get_array_module(mask_a)
    # Intersections of all pairs are one matrix product of the flattened
    # masks (exact in float32 up to 2**24 pixels).
    hw = mask_a.shape[1] * mask_a.shape[2]
    a = mask_a.reshape(len(mask_a), hw).astype(np.float32)
    b = mask_b.reshape(len(mask_b), hw).astype(np.float32)
    inter = a @ b.T
    union = a.sum(axis=1)[:, None] + b.sum(axis=1)[None, :] - inter
    with np.errstate(divide="ignore", invalid="ignore"):
        iou = inter / union
    return xp.asarray(iou, dtype=np.float32)
