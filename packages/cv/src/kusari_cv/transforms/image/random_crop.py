"""Crop a random region of an image."""

from __future__ import annotations

import random
from typing import Any

from kusari_cv._typing import Array
from kusari_cv.transforms.image._check import check_chw, check_size


def random_crop(
    img: Array, size: tuple[int, int], return_param: bool = False, copy: bool = False
) -> Any:
    """Crop a ``size = (H, W)`` region at a uniformly random position.

    Uses Python's ``random`` module.

    Args:
        img: An array of shape ``(C, H_in, W_in)``.
        size: The output ``(H, W)``; at most the input size.
        return_param: Also return ``{'y_slice', 'x_slice'}``.
        copy: Return a copy instead of a view.

    Returns:
        The crop, or ``(crop, param)``.
    """
    check_chw("random_crop", img)
    h, w = check_size("random_crop", size)
    _, in_h, in_w = img.shape
    if h > in_h or w > in_w:
        raise ValueError(
            f"random_crop: size {(h, w)} is larger than the image ({in_h}, {in_w})"
        )
    y = random.randint(0, in_h - h)
    x = random.randint(0, in_w - w)
    y_slice, x_slice = slice(y, y + h), slice(x, x + w)
    out = img[:, y_slice, x_slice]
    if copy:
        out = out.copy()
    if return_param:
        return out, {"y_slice": y_slice, "x_slice": x_slice}
    return out
