"""Resize an image so one side has a given length."""

from __future__ import annotations

from PIL import Image

from kusari_cv._typing import Array
from kusari_cv.transforms.image._check import check_chw
from kusari_cv.transforms.image.resize import resize


def scale(
    img: Array,
    size: int,
    fit_short: bool = True,
    interpolation: int = Image.Resampling.BILINEAR,
) -> Array:
    """Resize a CHW image, keeping its aspect ratio, so that its shorter side
    (``fit_short``) or its longer side becomes ``size``.

    The other side is ``int(size * long / short)`` (or ``short / long``).
    Returns ``img`` itself when the size does not change.
    """
    check_chw("scale", img)
    _, h, w = img.shape
    if fit_short:
        out = (size, int(size * w / h)) if h < w else (int(size * h / w), size)
    else:
        out = (int(size * h / w), size) if h < w else (size, int(size * w / h))
    if out == (h, w):
        return img
    return resize(img, out, interpolation)
