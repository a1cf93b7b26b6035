"""Crop the center of an image."""

from __future__ import annotations

from typing import Any

from kusari_cv._typing import Array
from kusari_cv.transforms.image._check import check_chw, check_size


def center_crop(
    img: Array, size: tuple[int, int], return_param: bool = False, copy: bool = False
) -> Any:
    """Crop a ``size = (H, W)`` region from the center of a CHW image.

    Args:
        img: An array of shape ``(C, H_in, W_in)``.
        size: The output ``(H, W)``; at most the input size.
        return_param: Also return ``{'y_slice', 'x_slice'}`` such that
            ``out = img[:, y_slice, x_slice]``.
        copy: Return a copy instead of a view.

    Returns:
        The crop, or ``(crop, param)``.
    """
    check_chw("center_crop", img)
    h, w = check_size("center_crop", size)
    _, in_h, in_w = img.shape
    if h > in_h or w > in_w:
        raise ValueError(
            f"center_crop: size {(h, w)} is larger than the image ({in_h}, {in_w})"
        )
    y = int(round((in_h - h) / 2.0))
    x = int(round((in_w - w) / 2.0))
    y_slice, x_slice = slice(y, y + h), slice(x, x + w)
    out = img[:, y_slice, x_slice]
    if copy:
        out = out.copy()
    if return_param:
        return out, {"y_slice": y_slice, "x_slice": x_slice}
    return out
