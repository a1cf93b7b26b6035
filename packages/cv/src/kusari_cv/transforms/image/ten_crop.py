"""The ten crops used for test-time augmentation."""

from __future__ import annotations

import numpy as np

from kusari_cv._typing import Array
from kusari_cv.transforms.image._check import check_chw, check_size


def ten_crop(img: Array, size: tuple[int, int]) -> Array:
    """Crop the center and the four corners, then the same five mirrored.

    Order: center, top-left, bottom-left, top-right, bottom-right, then those
    five flipped horizontally.

    Args:
        img: A ``(C, H_in, W_in)`` image.
        size: The crop ``(H, W)``; at most the input size.

    Returns:
        An array of shape ``(10, C, H, W)``.
    """
    check_chw("ten_crop", img)
    h, w = check_size("ten_crop", size)
    _, in_h, in_w = img.shape
    if h > in_h or w > in_w:
        raise ValueError(
            f"ten_crop: size {(h, w)} is larger than the image ({in_h}, {in_w})"
        )
    cy, cx = (in_h - h) // 2, (in_w - w) // 2
    crops = np.stack(
        (
            img[:, cy : cy + h, cx : cx + w],
            img[:, :h, :w],
            img[:, in_h - h :, :w],
            img[:, :h, in_w - w :],
            img[:, in_h - h :, in_w - w :],
        )
    )
    return np.concatenate((crops, crops[:, :, :, ::-1]))
