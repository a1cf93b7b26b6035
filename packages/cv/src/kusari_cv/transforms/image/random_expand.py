"""Place an image at a random position on a larger canvas (SSD)."""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from kusari_cv._typing import Array
from kusari_cv.transforms.image._check import check_chw


def random_expand(
    img: Array, max_ratio: float = 4, fill: Any = 0, return_param: bool = False
) -> Any:
    """Paste ``img`` on a canvas ``ratio`` times larger, ``ratio ~ U(1, max_ratio)``.

    Used to train SSD. Uses Python's ``random`` module.

    Args:
        img: A ``(C, H, W)`` image.
        max_ratio: The largest ratio; ``<= 1`` returns the image unchanged.
        fill: The canvas value: a scalar or one value per channel.
        return_param: Also return ``{'ratio', 'y_offset', 'x_offset'}``, where
            the image's top-left corner lands.

    Returns:
        The expanded image, or ``(image, param)``.
    """
    check_chw("random_expand", img)
    if max_ratio <= 1:
        if return_param:
            return img, {"ratio": 1, "y_offset": 0, "x_offset": 0}
        return img
    c, h, w = img.shape
    ratio = random.uniform(1, max_ratio)
    out_h, out_w = int(h * ratio), int(w * ratio)
    y = random.randint(0, out_h - h)
    x = random.randint(0, out_w - w)
    out = np.empty((c, out_h, out_w), dtype=img.dtype)
    out[:] = np.asarray(fill).reshape(-1, 1, 1)
    out[:, y : y + h, x : x + w] = img
    if return_param:
        return out, {"ratio": ratio, "y_offset": y, "x_offset": x}
    return out
