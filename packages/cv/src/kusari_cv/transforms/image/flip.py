"""Flip an image."""

from __future__ import annotations

from kusari_cv._typing import Array
from kusari_cv.transforms.image._check import check_chw


def flip(
    img: Array, y_flip: bool = False, x_flip: bool = False, copy: bool = False
) -> Array:
    """Flip a CHW image vertically (``y_flip``) and/or horizontally (``x_flip``).

    Returns a view unless ``copy`` is True.
    """
    check_chw("flip", img)
    if y_flip:
        img = img[:, ::-1, :]
    if x_flip:
        img = img[:, :, ::-1]
    if copy:
        img = img.copy()
    return img
