"""Resize instance masks, touching only the pixels around each mask."""

from __future__ import annotations

import numpy as np
from PIL import Image

import kusari
from kusari_cv._typing import Array
from kusari_cv.utils.bbox._check import check_bbox
from kusari_cv.utils.mask._check import check_mask


def scale_mask(mask: Array, bbox: Array, size: int) -> Array:
    """Resize masks so the image's shorter side becomes ``size``.

    Only the box around each mask is resized (nearest neighbour), which is
    much cheaper than resizing full-image masks.

    Args:
        mask: Boolean masks of shape ``(R, H, W)``.
        bbox: The boxes around them, ``mask_to_bbox(mask)``.
        size: The length of the shorter side after scaling.

    Returns:
        Boolean masks of shape ``(R, H', W')``.
    """
    check_mask("scale_mask", mask)
    check_bbox("scale_mask", bbox)
    xp = kusari.backend.get_array_module(mask)
    mask = kusari.backend.CpuDevice().send(mask)
    bbox = np.array(kusari.backend.CpuDevice().send(bbox), dtype=np.float64)
    r, h, w = mask.shape
    if h < w:
        out_size = (size, int(size * w / h))
        scale = size / h
    else:
        out_size = (int(size * h / w), size)
        scale = size / w
    src = np.concatenate((np.floor(bbox[:, :2]), np.ceil(bbox[:, 2:])), axis=1)
    src = src.astype(np.int64)
    dst = src * scale
    dst = np.concatenate((np.floor(dst[:, :2]), np.ceil(dst[:, 2:])), axis=1)
    dst = dst.astype(np.int64)
    out = np.zeros((r,) + out_size, dtype=bool)
    for i in range(r):
        y0, x0, y1, x1 = src[i]
        v0, u0, v1, u1 = dst[i]
        if y1 <= y0 or x1 <= x0 or v1 <= v0 or u1 <= u0:
            continue
        crop = Image.fromarray(mask[i, y0:y1, x0:x1].astype(np.uint8))
        crop = crop.resize((int(u1 - u0), int(v1 - v0)), Image.Resampling.NEAREST)
        out[i, v0:v1, u0:u1] = np.asarray(crop, dtype=bool)[
            : out_size[0] - v0, : out_size[1] - u0
        ]
    return xp.asarray(out)
