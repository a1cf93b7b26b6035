"""Fit an image inside a canvas, keeping its aspect ratio."""

from __future__ import annotations

from typing import Any

import numpy as np
from PIL import Image

from kusari_cv._typing import Array
from kusari_cv.transforms.image._check import check_chw, check_size
from kusari_cv.transforms.image.resize import resize


def resize_contain(
    img: Array,
    size: tuple[int, int],
    fill: Any = 0,
    interpolation: int = Image.Resampling.BILINEAR,
    return_param: bool = False,
) -> Any:
    """Place ``img`` centered on a ``size`` canvas, shrinking it to fit.

    An image larger than the canvas is scaled down (aspect ratio kept) until
    it fits; a smaller one is not enlarged. The rest of the canvas is
    ``fill``.

    Args:
        img: A ``(C, H, W)`` image.
        size: The canvas ``(H, W)``.
        fill: The canvas value: a scalar or one value per channel.
        interpolation: As in :func:`resize`.
        return_param: Also return ``{'y_offset', 'x_offset', 'scaled_size'}``
            (where the image's top-left corner lands and its size).

    Returns:
        The canvas, or ``(canvas, param)``.
    """
    check_chw("resize_contain", img)
    out_h, out_w = check_size("resize_contain", size)
    c, h, w = img.shape
    scale = min(out_h / h, out_w / w, 1.0)
    scaled = (int(h * scale), int(w * scale))
    if scale < 1.0:
        img = resize(img, scaled, interpolation)
    y = (out_h - scaled[0]) // 2
    x = (out_w - scaled[1]) // 2
    out = np.empty((c, out_h, out_w), dtype=img.dtype)
    out[:] = np.asarray(fill).reshape(-1, 1, 1)
    out[:, y : y + scaled[0], x : x + scaled[1]] = img
    if return_param:
        return out, {"y_offset": y, "x_offset": x, "scaled_size": scaled}
    return out
